package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy the network fault scenarios cut: each mode does what a client on the far side would see. */
class TcpProxyTest {
    private ServerSocket echo;
    private TcpProxy proxy;

    @BeforeEach
    void start() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!echo.isClosed()) {
                try {
                    Socket s = echo.accept();
                    Thread e = new Thread(() -> {
                        try (s) {
                            s.getInputStream().transferTo(s.getOutputStream());
                        } catch (IOException ignored) {
                            // the proxy reset it
                        }
                    });
                    e.setDaemon(true);
                    e.start();
                } catch (IOException closed) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
        proxy = new TcpProxy(echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        s.setSoTimeout(1_000);
        return s;
    }

    /**
     * The proxy does not accept on its closed port. A connect there is refused, except that Linux may
     * connect the socket to itself (when it picks the closed port as the socket's own ephemeral port),
     * and another process on the machine may bind the freed port meanwhile: neither is the proxy, so
     * what is checked is that the proxy accepts nothing.
     */
    private void assertNothingListens() {
        long acceptedBefore = proxy.acceptedConnections();
        try (Socket s = connect()) {
            long deadline = System.nanoTime() + 500_000_000L; // the proxy's accept loop would take it within that
            while (System.nanoTime() < deadline) {
                assertThat(proxy.acceptedConnections()).as("connections the proxy accepted on its refused port")
                        .isEqualTo(acceptedBefore);
                Thread.sleep(20);
            }
        } catch (ConnectException refused) {
            // what a closed port answers
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static int roundTrip(Socket s, int b) throws IOException {
        s.getOutputStream().write(b);
        s.getOutputStream().flush();
        return s.getInputStream().read();
    }

    @Test
    void forwardsBothWays() throws IOException {
        try (Socket s = connect()) {
            assertThat(roundTrip(s, 42)).isEqualTo(42);
        }
    }

    @Test
    void delayedRequestsTakeAtLeastTheDelayEachRoundTripAndArriveWhole() throws IOException {
        proxy.delayRequests(150);
        try (Socket s = connect()) {
            s.setSoTimeout(5_000);
            for (int i = 0; i < 3; i++) {
                long started = System.nanoTime();
                assertThat(roundTrip(s, 7 + i)).isEqualTo(7 + i);
                assertThat((System.nanoTime() - started) / 1_000_000).as("round trip %d (ms)", i).isGreaterThanOrEqualTo(150);
            }
        }
        proxy.delayRequests(0);
        try (Socket s = connect()) {
            assertThat(roundTrip(s, 1)).isEqualTo(1);
        }
    }

    @Test
    void refuseResetsOpenConnectionsAndClosesThePortUntilForward() throws IOException {
        Socket open = connect();
        assertThat(roundTrip(open, 1)).isEqualTo(1);
        proxy.refuse();
        InputStream in = open.getInputStream();
        assertThatThrownBy(() -> {
            if (in.read() < 0) {
                throw new IOException("closed");
            }
        }).isInstanceOf(IOException.class);
        assertNothingListens();
        proxy.forward();
        try (Socket s = connect()) {
            assertThat(roundTrip(s, 7)).isEqualTo(7);
        }
    }

    @Test
    void blackHoleAcceptsButNeverAnswers() throws IOException {
        try (Socket before = connect()) {
            proxy.blackHole();
            assertThatThrownBy(() -> roundTrip(before, 3)).isInstanceOf(SocketTimeoutException.class);
            try (Socket during = connect()) { // accepted: the handshake is the proxy's
                assertThatThrownBy(() -> roundTrip(during, 4)).isInstanceOf(SocketTimeoutException.class);
            }
        }
        proxy.forward();
        try (Socket after = connect()) {
            assertThat(roundTrip(after, 5)).isEqualTo(5);
        }
    }
}
