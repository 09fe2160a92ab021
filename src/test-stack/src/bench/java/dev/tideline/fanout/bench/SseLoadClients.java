package dev.tideline.fanout.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thousands of SSE subscribers on one selector thread. Each records, for every change, now minus
 * the {@code sentAt} the producer put in the document: the end-to-end delivery latency. The
 * benchmark runs them in a JVM of their own ({@link #main}, driven by {@link ClientProcess}), so
 * their CPU is not the gateway's nor the producer's.
 */
final class SseLoadClients implements AutoCloseable {
    /** In the document: when the producer sent the change. */
    private static final byte[] SENT_AT = "\"sentAt\": ".getBytes(StandardCharsets.US_ASCII);
    /** In the gateway's message: when the gateway published it. */
    private static final byte[] PUBLISHED_AT = "\"at\":".getBytes(StandardCharsets.US_ASCII);

    private final Selector selector = Selector.open();
    private final Thread thread;
    private final Samples endToEnd;
    private final Samples fromGateway;
    private volatile boolean recording;
    private volatile boolean running = true;
    final AtomicLong connected = new AtomicLong();
    final AtomicLong closedByServer = new AtomicLong();

    /** Latencies of one kind, in milliseconds, as they arrive. */
    static final class Samples {
        private final byte[] mark;
        private final long[] values;
        private final AtomicLong count = new AtomicLong();

        Samples(byte[] mark, int max) {
            this.mark = mark;
            this.values = new long[max];
        }

        long count() {
            return count.get();
        }

        long[] sorted() {
            int n = (int) Math.min(count.get(), values.length);
            long[] out = java.util.Arrays.copyOf(values, n);
            java.util.Arrays.sort(out);
            return out;
        }
    }

    /** Per connection and mark: bytes not yet scanned (a mark may straddle two reads). */
    private static final class Conn {
        final ByteBuffer request;
        final byte[][] carry = {new byte[0], new byte[0]};
        boolean gotStatus;

        Conn(String request) {
            this.request = ByteBuffer.wrap(request.getBytes(StandardCharsets.US_ASCII));
        }
    }

    SseLoadClients(String host, int port, List<String> paths, int maxSamples) throws IOException {
        endToEnd = new Samples(SENT_AT, maxSamples);
        fromGateway = new Samples(PUBLISHED_AT, maxSamples);
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
                            long now = System.currentTimeMillis();
                            if (!c.gotStatus && n >= 12) {
                                c.gotStatus = true;
                                if (buf.get(9) == '2') {
                                    connected.incrementAndGet();
                                }
                            }
                            scan(c, 0, endToEnd, buf.array(), n, now);
                            scan(c, 1, fromGateway, buf.array(), n, now);
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

    private void scan(Conn c, int slot, Samples samples, byte[] data, int n, long now) {
        byte[] carry = c.carry[slot];
        byte[] mark = samples.mark;
        byte[] all = new byte[carry.length + n];
        System.arraycopy(carry, 0, all, 0, carry.length);
        System.arraycopy(data, 0, all, carry.length, n);
        int consumed = 0;
        int i = indexOf(all, mark, 0);
        while (i >= 0) {
            int j = i + mark.length;
            long v = 0;
            while (j < all.length && all[j] >= '0' && all[j] <= '9') {
                v = v * 10 + (all[j] - '0');
                j++;
            }
            if (j == all.length) {
                break; // the number may go on in the next read
            }
            if (recording) {
                long k = samples.count.getAndIncrement();
                if (k < samples.values.length) {
                    samples.values[(int) k] = now - v;
                }
            }
            consumed = j;
            i = indexOf(all, mark, j);
        }
        int keepFrom = Math.max(consumed, all.length - mark.length - 20);
        if (i >= 0 && i < keepFrom) {
            keepFrom = i;
        }
        c.carry[slot] = java.util.Arrays.copyOfRange(all, Math.max(0, keepFrom), all.length);
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

    /**
     * The clients' own process: {@code <host> <port> <file of request paths, one a line> <max samples>}, then
     * one command a line on standard input, each answered with one line on standard output:
     * {@code status} ({@code STATUS <subscribed> <closed by the gateway> <received>}), {@code record} (forgets the
     * last step's samples and records), {@code stop}, {@code latencies} ({@code LATENCIES <count> <p50> <p99> <max>
     * <gateway->client p99>}, milliseconds), {@code quit}.
     */
    public static void main(String[] args) throws Exception {
        List<String> paths = Files.readAllLines(Path.of(args[2]), StandardCharsets.US_ASCII);
        try (SseLoadClients clients = new SseLoadClients(args[0], Integer.parseInt(args[1]), paths, Integer.parseInt(args[3]));
             BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII))) {
            System.out.println("READY");
            for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
                switch (line) {
                    case "status" -> System.out.println("STATUS " + clients.connected.get() + " " + clients.closedByServer.get() + " "
                            + clients.received());
                    case "record" -> {
                        clients.reset();
                        clients.record(true);
                        System.out.println("OK");
                    }
                    case "stop" -> {
                        clients.record(false);
                        System.out.println("OK");
                    }
                    case "latencies" -> {
                        long[] lat = clients.endToEnd().sorted();
                        long[] gw = clients.fromGateway().sorted();
                        System.out.println("LATENCIES " + lat.length + " " + percentile(lat, 50) + " " + percentile(lat, 99) + " "
                                + (lat.length == 0 ? -1 : lat[lat.length - 1]) + " " + percentile(gw, 99));
                    }
                    default -> System.out.println("ERROR unknown command " + line);
                }
                System.out.flush();
            }
        }
    }

    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return -1;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100 * sorted.length) - 1)];
    }

    void record(boolean on) {
        recording = on;
    }

    /** Forgets the samples of the previous step. */
    void reset() {
        endToEnd.count.set(0);
        fromGateway.count.set(0);
    }

    /** Changes received while recording. */
    long received() {
        return endToEnd.count();
    }

    /** Producer to client. */
    Samples endToEnd() {
        return endToEnd;
    }

    /** Gateway publishing it to client reading it: the gateway's own share. */
    Samples fromGateway() {
        return fromGateway;
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
