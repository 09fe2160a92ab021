package dev.tideline.fanout.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;

/** Plain sockets speaking just enough HTTP and WebSocket to misbehave on purpose. */
public final class RawHttp {
    private RawHttp() {
    }

    /** A connection from {@code localAddress} (any 127.x.y.z works on Linux) to the gateway. */
    public static Socket connect(String localAddress, int port) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(InetAddress.getByName(localAddress), 0));
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        return s;
    }

    public static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
    }

    /** Everything the server sends until it closes the connection (or {@code timeoutMillis} passes). */
    public static String readUntilClosed(Socket s, int timeoutMillis) throws IOException {
        s.setSoTimeout(timeoutMillis);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        InputStream in = s.getInputStream();
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                out.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            out.write("<still open>".getBytes(StandardCharsets.US_ASCII));
        } catch (IOException reset) {
            out.write("<reset>".getBytes(StandardCharsets.US_ASCII));
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** What the server sends until {@code needle} has arrived (or it closes, or {@code timeoutMillis} passes). */
    public static String readUntil(Socket s, String needle, int timeoutMillis) throws IOException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        InputStream in = s.getInputStream();
        while (!out.toString(StandardCharsets.UTF_8).contains(needle)) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                break;
            }
            s.setSoTimeout((int) left);
            try {
                int n = in.read(buf);
                if (n < 0) {
                    break;
                }
                out.write(buf, 0, n);
            } catch (SocketTimeoutException e) {
                break;
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Reads the response head (through the blank line). */
    public static String readHead(Socket s, int timeoutMillis) throws IOException {
        s.setSoTimeout(timeoutMillis);
        StringBuilder sb = new StringBuilder();
        InputStream in = s.getInputStream();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            sb.append((char) c);
        }
        return sb.toString();
    }

    /** A WebSocket upgrade request for {@code pathAndQuery}, as a browser sends it to {@code host} (host:port). */
    public static String webSocketUpgrade(String host, String pathAndQuery, String origin) {
        byte[] key = new byte[16];
        new SecureRandom().nextBytes(key);
        return "GET " + pathAndQuery + " HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + Base64.getEncoder().encodeToString(key) + "\r\nSec-WebSocket-Version: 13\r\n"
                + (origin == null ? "" : "Origin: " + origin + "\r\n") + "\r\n";
    }

    /** A masked client ping frame (RFC 6455 5.5.2) with a payload of {@code size} bytes (at most 125). */
    public static byte[] pingFrame(int size) {
        byte[] frame = new byte[2 + 4 + size];
        frame[0] = (byte) 0x89;           // FIN + opcode 9 (ping)
        frame[1] = (byte) (0x80 | size);  // masked
        frame[2] = 1;
        frame[3] = 2;
        frame[4] = 3;
        frame[5] = 4;
        for (int i = 0; i < size; i++) {
            frame[6 + i] = (byte) ('p' ^ frame[2 + (i % 4)]);
        }
        return frame;
    }
}
