package dev.tideline.it.fanout;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import dev.tideline.it.support.Waits;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A subscriber that does what the JavaScript client does, minus its safety net: when the stream
 * ends it reconnects (through the same address) with the id of the last event it received. It
 * records every change exactly as received, so a test sees any duplicate or gap the gateways send.
 */
public final class ResumingSseClient implements AutoCloseable {
    private final String baseUrl;
    private final String path;
    private final List<BsonDocument> changes = new CopyOnWriteArrayList<>();
    private final List<String> unrecoverable = new CopyOnWriteArrayList<>();
    private final List<String> resumeKinds = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile SseClient current;
    private volatile String lastEventId;

    public ResumingSseClient(String baseUrl, String token, String channel) {
        this.baseUrl = baseUrl;
        this.path = "/sse?token=" + token + "&channel=" + channel;
        this.thread = new Thread(this::loop, "resuming-sse-" + channel);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        while (running) {
            String p = lastEventId == null ? path : path + "&lastEventId=" + URLEncoder.encode(lastEventId, StandardCharsets.UTF_8);
            SseClient c;
            try {
                c = SseClient.open(baseUrl, p, Map.of());
            } catch (RuntimeException e) {
                pause(200);
                continue;
            }
            if (c.status() != 200) {
                pause(200); // e.g. 503 while the gateway starts
                continue;
            }
            current = c;
            connections.incrementAndGet();
            int seen = 0;
            while (running) {
                List<SseClient.Event> events = c.events();
                for (int i = seen; i < events.size(); i++) {
                    SseClient.Event e = events.get(i);
                    if (e.id() != null) {
                        lastEventId = e.id();
                    }
                    switch (e.type()) {
                        case "change" -> changes.add(e.json());
                        case "unrecoverable" -> unrecoverable.add(e.data());
                        case "subscribed" -> resumeKinds.add(e.json().getString("resume").getValue());
                        default -> { }
                    }
                }
                seen = events.size();
                if (c.ended()) {
                    break;
                }
                pause(10);
            }
            c.close();
            pause(100);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public List<BsonDocument> changes() {
        return List.copyOf(changes);
    }

    public List<String> unrecoverable() {
        return List.copyOf(unrecoverable);
    }

    /** How each connection resumed its channel: live, cache, kafka, unrecoverable. */
    public List<String> resumeKinds() {
        return List.copyOf(resumeKinds);
    }

    public int connections() {
        return connections.get();
    }

    public void awaitChanges(int n, Duration timeout) {
        try {
            Waits.await(n + " changes", timeout, Duration.ofMillis(50)).until(() -> changes.size() >= n);
        } catch (ConditionTimeoutException e) {
            // the caller checks what arrived against what it expected: its assertion says what is missing
        }
    }

    @Override
    public void close() {
        running = false;
        SseClient c = current;
        if (c != null) {
            c.close();
        }
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
