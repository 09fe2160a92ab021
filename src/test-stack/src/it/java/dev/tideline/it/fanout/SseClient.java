package dev.tideline.it.fanout;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import dev.tideline.it.support.Waits;

/**
 * A Server-Sent Events subscriber for tests: records every event with the time it arrived. The
 * connection is read on a thread of its own until {@link #close()}.
 */
public final class SseClient implements AutoCloseable {
    /** How often the waits look at what arrived. */
    private static final Duration POLL = Duration.ofMillis(20);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();

    /** One event: {@code data} is JSON. */
    public record Event(String id, String type, String data, long receivedAtMillis) {
        public BsonDocument json() {
            return BsonDocument.parse(data);
        }
    }

    private final int status;
    private final String errorBody;
    private final List<Event> events = new CopyOnWriteArrayList<>();
    private final Stream<String> lines;
    private final Thread reader;
    private volatile boolean ended;

    private SseClient(int status, String errorBody, Stream<String> lines) {
        this.status = status;
        this.errorBody = errorBody;
        this.lines = lines;
        this.reader = lines == null ? null : new Thread(this::read, "sse-client");
        if (reader != null) {
            reader.setDaemon(true);
            reader.start();
        }
    }

    /** Opens {@code baseUrl + pathAndQuery}; a refused subscription comes back with its status and body. */
    public static SseClient open(String baseUrl, String pathAndQuery, Map<String, String> headers) {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(baseUrl + pathAndQuery)).GET();
        headers.forEach(req::header);
        try {
            CompletableFuture<HttpResponse<Stream<String>>> f = HTTP.sendAsync(req.build(), HttpResponse.BodyHandlers.ofLines());
            HttpResponse<Stream<String>> res = f.get(30, TimeUnit.SECONDS);
            if (res.statusCode() != 200) {
                String body;
                try (Stream<String> s = res.body()) {
                    body = String.join("\n", s.toList());
                }
                return new SseClient(res.statusCode(), body, null);
            }
            return new SseClient(200, null, res.body());
        } catch (Exception e) {
            throw new IllegalStateException("cannot open " + pathAndQuery + ": " + e, e);
        }
    }

    private void read() {
        String id = null;
        String type = "message";
        StringBuilder data = new StringBuilder();
        try {
            for (String line : (Iterable<String>) lines::iterator) {
                if (line.isEmpty()) {
                    if (data.length() > 0) {
                        events.add(new Event(id, type, data.toString(), System.currentTimeMillis()));
                    }
                    type = "message";
                    data.setLength(0);
                } else if (line.startsWith("id: ")) {
                    id = line.substring(4);
                } else if (line.startsWith("event: ")) {
                    type = line.substring(7);
                } else if (line.startsWith("data: ")) {
                    data.append(line.substring(6));
                }
            }
        } catch (RuntimeException e) {
            // the connection was closed (by us or the gateway)
        } finally {
            ended = true;
        }
    }

    public int status() {
        return status;
    }

    public String errorBody() {
        return errorBody;
    }

    /** True once the gateway (or {@link #close()}) ended the stream. */
    public boolean ended() {
        return ended;
    }

    public List<Event> events() {
        return new ArrayList<>(events);
    }

    public List<Event> events(String type) {
        return events.stream().filter(e -> e.type().equals(type)).toList();
    }

    /** Waits until at least {@code n} events of the type arrived; returns them. */
    public List<Event> await(String type, int n, Duration timeout) {
        return Waits.until(timeout, POLL, () -> events(type), got -> got.size() >= n,
                got -> "waited " + timeout.toSeconds() + " s for " + n + " '" + type + "' events, got "
                        + got.size() + "; all events: " + summary());
    }

    public void awaitEnded(Duration timeout) {
        Waits.until(timeout, POLL, () -> ended, Boolean::booleanValue,
                x -> "the gateway did not end the stream within " + timeout.toSeconds() + " s; events: " + summary());
    }

    /** The id of the last event received: what a browser sends back as Last-Event-ID. */
    public String lastEventId() {
        List<Event> all = events();
        return all.isEmpty() ? null : all.get(all.size() - 1).id();
    }

    public String summary() {
        StringBuilder sb = new StringBuilder();
        for (Event e : events()) {
            sb.append(e.type()).append('[').append(e.id()).append("] ");
        }
        return sb.toString();
    }

    @Override
    public void close() {
        if (lines != null) {
            lines.close();
        }
    }

    /** A raw HTTP GET that returns the status line and never reads more: a client that stalls. */
    public static java.net.Socket stalled(String host, int port, String pathAndQuery, int receiveBuffer) throws IOException {
        java.net.Socket s = new java.net.Socket();
        s.setReceiveBufferSize(receiveBuffer);
        s.connect(new java.net.InetSocketAddress(host, port), 10_000);
        s.getOutputStream().write(("GET " + pathAndQuery + " HTTP/1.1\r\nHost: " + host + "\r\nAccept: text/event-stream\r\n\r\n")
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }
}
