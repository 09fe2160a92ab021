package dev.tideline.it.fanout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Gateways behind one address, as a load balancer puts them: each new connection goes to the next
 * backend in turn that accepts it (one that refuses is skipped), and its bytes are piped both ways.
 * A backend that dies closes its clients' connections, which then come back here.
 */
public final class TcpBalancer implements AutoCloseable {
    private final ServerSocket server;
    private final List<Integer> backends;
    private final AtomicInteger next = new AtomicInteger();
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final Thread acceptor;
    private volatile boolean running = true;

    public TcpBalancer(List<Integer> backendPorts) throws IOException {
        this.backends = new CopyOnWriteArrayList<>(backendPorts);
        this.server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "tcp-balancer");
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** Replaces a backend (a gateway restarted on another port). */
    public void replace(int oldPort, int newPort) {
        backends.set(backends.indexOf(oldPort), newPort);
    }

    private void accept() {
        while (running) {
            try {
                Socket client = server.accept();
                Socket backend = connect();
                if (backend == null) {
                    client.close();
                    continue;
                }
                open.add(client);
                open.add(backend);
                pipe(client, backend);
                pipe(backend, client);
            } catch (IOException e) {
                if (running) {
                    System.out.println("tcp balancer: " + e);
                }
            }
        }
    }

    private Socket connect() {
        for (int i = 0; i < backends.size(); i++) {
            int port = backends.get(Math.floorMod(next.getAndIncrement(), backends.size()));
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
                return s;
            } catch (IOException refused) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // nothing to release
                }
            }
        }
        return null;
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                for (int n; (n = in.read(buf)) >= 0; ) {
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side went away
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "tcp-balancer-pipe");
        t.setDaemon(true);
        t.start();
    }

    private void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
        open.remove(s);
    }

    @Override
    public void close() throws IOException {
        running = false;
        server.close();
        for (Socket s : open) {
            closeQuietly(s);
        }
    }
}
