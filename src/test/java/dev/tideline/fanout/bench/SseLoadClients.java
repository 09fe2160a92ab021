package dev.tideline.fanout.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thousands of SSE subscribers on one selector thread. Each records, for every change, now minus
 * the {@code sentAt} the producer put in the document: the end-to-end delivery latency.
 */
final class SseLoadClients implements AutoCloseable {
    private static final byte[] MARK = "\"sentAt\": ".getBytes(StandardCharsets.US_ASCII);

    private final Selector selector = Selector.open();
    private final Thread thread;
    private final long[] latencies;
    private final AtomicLong count = new AtomicLong();
    private volatile boolean recording;
    private volatile boolean running = true;
    final AtomicLong connected = new AtomicLong();
    final AtomicLong closedByServer = new AtomicLong();

    /** Per connection: bytes not yet scanned (a mark may straddle two reads). */
    private static final class Conn {
        final ByteBuffer request;
        byte[] carry = new byte[0];
        boolean gotStatus;

        Conn(String request) {
            this.request = ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII));
        }
    }

    SseLoadClients(String host, int port, List<String> paths, int maxSamples) throws IOException {
        latencies = new long[maxSamples];
        for (String path : paths) {
            SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            ch.connect(new InetSocketAddress(host, port));
            ch.register(selector, SelectionKey.OP_CONNECT,
                    new Conn("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAccept: text/event-stream\r\n\r\n"));
        }
        thread = new Thread(this::loop, "sse-load-clients");
        thread.start();
    }

    private void loop() {
        ByteBuffer buf = ByteBuffer.allocate(256 * 1024);
        try {
            while (running) {
                selector.select(200);
                var it = selector.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey key = it.next();
                    it.remove();
                    Conn c = (Conn) key.attachment();
                    SocketChannel ch = (SocketChannel) key.channel();
                    try {
                        if (key.isConnectable()) {
                            ch.finishConnect();
                            key.interestOps(SelectionKey.OP_WRITE);
                        } else if (key.isWritable()) {
                            ch.write(c.request);
                            if (!c.request.hasRemaining()) {
                                key.interestOps(SelectionKey.OP_READ);
                            }
                        } else if (key.isReadable()) {
                            buf.clear();
                            int n = ch.read(buf);
                            if (n < 0) {
                                closedByServer.incrementAndGet();
                                key.cancel();
                                ch.close();
                                continue;
                            }
                            scan(c, buf.array(), n, System.currentTimeMillis());
                        }
                    } catch (IOException e) {
                        closedByServer.incrementAndGet();
                        key.cancel();
                        ch.close();
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private void scan(Conn c, byte[] data, int n, long now) {
        byte[] all = new byte[c.carry.length + n];
        System.arraycopy(c.carry, 0, all, 0, c.carry.length);
        System.arraycopy(data, 0, all, c.carry.length, n);
        if (!c.gotStatus && all.length >= 12) {
            c.gotStatus = true;
            if (all[9] == '2') {
                connected.incrementAndGet();
            }
        }
        int consumed = 0;
        int i = indexOf(all, MARK, 0);
        while (i >= 0) {
            int j = i + MARK.length;
            long v = 0;
            while (j < all.length && all[j] >= '0' && all[j] <= '9') {
                v = v * 10 + (all[j] - '0');
                j++;
            }
            if (j == all.length) {
                break; // the number may go on in the next read
            }
            if (recording) {
                long k = count.getAndIncrement();
                if (k < latencies.length) {
                    latencies[(int) k] = now - v;
                }
            }
            consumed = j;
            i = indexOf(all, MARK, j);
        }
        int keepFrom = Math.max(consumed, all.length - MARK.length - 20);
        if (i >= 0 && i < keepFrom) {
            keepFrom = i;
        }
        c.carry = java.util.Arrays.copyOfRange(all, Math.max(0, keepFrom), all.length);
    }

    private static int indexOf(byte[] hay, byte[] needle, int from) {
        outer:
        for (int i = from; i <= hay.length - needle.length; i++) {
            for (int k = 0; k < needle.length; k++) {
                if (hay[i + k] != needle[k]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    void record(boolean on) {
        recording = on;
    }

    long received() {
        return count.get();
    }

    /** The recorded latencies, sorted. */
    long[] sortedLatencies() {
        int n = (int) Math.min(count.get(), latencies.length);
        long[] out = java.util.Arrays.copyOf(latencies, n);
        java.util.Arrays.sort(out);
        return out;
    }

    @Override
    public void close() throws IOException {
        running = false;
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (SelectionKey k : selector.keys()) {
            k.channel().close();
        }
        selector.close();
    }
}
