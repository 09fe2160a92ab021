package dev.tideline.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free TCP ports on 127.0.0.1, for children that need their port before they start. */
final class FreePorts {
    private FreePorts() {
    }

    /**
     * There is a small window between closing the probe socket and the child binding the port;
     * acceptable for tests (a clash shows up as a clear bind error in the child's log).
     */
    static int next() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}
