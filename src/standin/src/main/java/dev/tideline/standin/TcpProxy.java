package dev.tideline.standin;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP forwarder on 127.0.0.1 that a test can cut, the network fault a client sees between itself
 * and a server: {@link #dropAll()} resets every open connection, {@link #refuse()} closes the port
 * (connects are refused), {@link #blackHole()} accepts and reads but never answers nor forwards (a
 * dead route: only the client's own timeouts end a call), {@link #forward()} heals it all. The
 * target can change ({@link #retarget(int)}), e.g. to a server restarted on another port.
 *
 * <p>{@link #delayRequests(long)} makes it a distant server instead: every read of a client's bytes waits
 * that long before it is forwarded, so each round trip (a {@code getMore}, an insert) takes at least
 * that much longer, per connection, as over a long network path.
 *
 * <p>Plain blocking sockets, two pump threads per connection: the volumes in tests are small.
 */
public final class TcpProxy implements AutoCloseable {
    public enum Mode { FORWARD, REFUSE, BLACK_HOLE }

    private final int port;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong swallowed = new AtomicLong();
    private volatile int targetPort;
    private volatile Mode mode = Mode.FORWARD;
    private volatile long requestDelayMs;
    private volatile boolean closed;
    private ServerSocket server;
    private Thread acceptor;

    public TcpProxy(int targetPort) {
        this.targetPort = targetPort;
        this.port = listen(0);
    }

    /** The port clients connect to. */
    public int port() {
        return port;
    }

    /**
     * {@code mongodb://127.0.0.1:<proxy port>/?directConnection=true}: the MongoDB member behind this proxy. Directly:
     * a driver that discovered a replica set would connect to the members' announced addresses, around the proxy
     * (https://github.com/mongodb/specifications/blob/master/source/server-discovery-and-monitoring/server-discovery-and-monitoring.md#initial-topologytype).
     */
    public String mongoUri() {
        return "mongodb://127.0.0.1:" + port + "/?directConnection=true";
    }

    public Mode mode() {
        return mode;
    }

    /** Each read of a client's bytes waits {@code ms} before it is forwarded (0: none): a longer round trip. */
    public void delayRequests(long ms) {
        this.requestDelayMs = ms;
    }

    public long acceptedConnections() {
        return accepted.get();
    }

    public long droppedConnections() {
        return dropped.get();
    }

    /** Bytes read and thrown away while black-holed, either way: a request (or its answer) that will never arrive. */
    public long swallowedBytes() {
        return swallowed.get();
    }

    /** Resets every open connection; new ones are served according to the mode. */
    public void dropAll() {
        for (Link link : links) {
            link.close();
            dropped.incrementAndGet();
        }
    }

    /** Resets every connection and closes the port: connects fail at once with "connection refused". */
    public synchronized void refuse() {
        mode = Mode.REFUSE;
        closeServer();
        dropAll();
    }

    /** Open connections and new ones stay up, but nothing crosses any more in either direction. */
    public synchronized void blackHole() {
        mode = Mode.BLACK_HOLE;
    }

    /**
     * Heals the network. Connections that lived through a black hole lost bytes mid-message, so
     * they are reset, as a real TCP stack would after its retransmissions gave up.
     */
    public synchronized void forward() {
        Mode before = mode;
        mode = Mode.FORWARD;
        if (before == Mode.BLACK_HOLE) {
            dropAll();
        }
        if (server == null || server.isClosed()) {
            listen(port);
        }
    }

    /** Later connections go to {@code newTargetPort}; open ones are reset. */
    public void retarget(int newTargetPort) {
        targetPort = newTargetPort;
        dropAll();
    }

    @Override
    public synchronized void close() {
        closed = true;
        closeServer();
        dropAll();
    }

    private synchronized int listen(int bindPort) {
        try {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), bindPort));
            server = s;
            acceptor = new Thread(() -> acceptLoop(s), "tcp-proxy-accept-" + s.getLocalPort());
            acceptor.setDaemon(true);
            acceptor.start();
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1:" + bindPort, e);
        }
    }

    private void closeServer() {
        if (server != null) {
            try {
                server.close();
            } catch (IOException e) {
                StackLog.info("closing the proxy's server socket: " + e);
            }
        }
    }

    private void acceptLoop(ServerSocket s) {
        while (!closed && !s.isClosed()) {
            Socket client;
            try {
                client = s.accept();
            } catch (IOException e) {
                return; // closed by refuse() or close()
            }
            accepted.incrementAndGet();
            Link link = new Link(client);
            links.add(link);
            link.start();
        }
    }

    /** One client connection and, unless black-holed from the start, its upstream connection. */
    private final class Link {
        private final Socket client;
        private volatile Socket upstream;

        Link(Socket client) {
            this.client = client;
        }

        void start() {
            Thread t = new Thread(this::run, "tcp-proxy-link");
            t.setDaemon(true);
            t.start();
        }

        private void run() {
            try {
                if (mode == Mode.BLACK_HOLE) {
                    pump(client.getInputStream(), null, false); // accept, read, never answer
                    return;
                }
                Socket up = new Socket();
                up.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
                upstream = up;
                Thread back = new Thread(() -> {
                    try {
                        pump(up.getInputStream(), client.getOutputStream(), false);
                    } catch (IOException e) {
                        // one side closed: the link is over
                    } finally {
                        close();
                    }
                }, "tcp-proxy-back");
                back.setDaemon(true);
                back.start();
                pump(client.getInputStream(), up.getOutputStream(), true);
            } catch (IOException e) {
                // the target is down or one side closed: the client sees a reset, as it would
            } finally {
                close();
            }
        }

        /**
         * Copies until end of stream; while black-holed, bytes are read and thrown away.
         *
         * @param requests whether these are the client's bytes, which {@link #delayRequests} holds back
         */
        private void pump(InputStream in, OutputStream out, boolean requests) throws IOException {
            byte[] buffer = new byte[16 * 1024];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                long delay = requests ? requestDelayMs : 0;
                if (delay > 0) {
                    try {
                        Thread.sleep(delay);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new java.io.InterruptedIOException("interrupted while delaying a request");
                    }
                }
                if (mode != Mode.BLACK_HOLE && out != null) {
                    out.write(buffer, 0, n);
                    out.flush();
                } else {
                    swallowed.addAndGet(n);
                }
            }
        }

        void close() {
            links.remove(this);
            closeQuietly(client);
            closeQuietly(upstream);
        }

        private void closeQuietly(Socket s) {
            if (s == null) {
                return;
            }
            try {
                s.setSoLinger(true, 0); // a reset, not a polite FIN: what a cut looks like
                s.close();
            } catch (SocketException e) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // already closed
                }
            } catch (IOException e) {
                // already closed
            }
        }
    }
}
