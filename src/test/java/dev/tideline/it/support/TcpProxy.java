package dev.tideline.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP port that forwards to a server while it is {@link #open()} and has nothing listening while it is
 * {@link #close()}d: to a client, a server that is down (connection refused, live connections cut) and
 * later comes back on the same address, with its data intact.
 */
public final class TcpProxy implements AutoCloseable {
    private final InetSocketAddress target;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private ServerSocket listener;

    /** A proxy to {@code host:port}, on a free port of 127.0.0.1, not listening yet. */
    public TcpProxy(String host, int targetPort) {
        this.target = new InetSocketAddress(host, targetPort);
        this.port = FreePorts.next();
    }

    public int port() {
        return port;
    }

    /** Starts listening (again) on the same port. */
    public synchronized TcpProxy open() {
        if (listener != null) {
            return this;
        }
        try {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            listener = s;
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on 127.0.0.1:" + port, e);
        }
        ServerSocket s = listener;
        Thread accept = new Thread(() -> acceptLoop(s), "tcp-proxy-accept-" + port);
        accept.setDaemon(true);
        accept.start();
        return this;
    }

    /** Stops listening and cuts every forwarded connection: the port then refuses connections. */
    @Override
    public synchronized void close() {
        closeQuietly(listener);
        listener = null;
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
    }

    private void acceptLoop(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                Socket server = new Socket(target.getAddress(), target.getPort());
                sockets.add(client);
                sockets.add(server);
                pipe(client, server);
                pipe(server, client);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // cut: close both ends below
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "tcp-proxy-pipe-" + port);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            // already closed
        }
    }
}
