package dev.tideline.it.fanout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import dev.tideline.it.support.Waits;

/** A WebSocket subscriber for tests: each text frame is {@code {"event","id","data"}}. */
public final class WsClient implements AutoCloseable {
    private final List<BsonDocument> frames = new CopyOnWriteArrayList<>();
    private final WebSocket socket;

    public WsClient(String baseUrl, String pathAndQuery) throws Exception {
        socket = HttpClient.newHttpClient().newWebSocketBuilder()
                .buildAsync(URI.create(baseUrl.replaceFirst("^http", "ws") + pathAndQuery), new WebSocket.Listener() {
                    private final StringBuilder text = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                        text.append(data);
                        if (last) {
                            frames.add(BsonDocument.parse(text.toString()));
                            text.setLength(0);
                        }
                        w.request(1);
                        return null;
                    }
                }).get(30, TimeUnit.SECONDS);
    }

    /** The {@code data} of the frames of one event type, once at least {@code n} arrived. */
    public List<BsonDocument> await(String event, int n, Duration timeout) throws InterruptedException {
        return Waits.until(timeout, Duration.ofMillis(20), () -> frames.stream()
                        .filter(f -> f.getString("event").getValue().equals(event)).map(f -> f.getDocument("data")).toList(),
                got -> got.size() >= n, got -> "waited " + timeout + " for " + n + " '" + event + "' frames, got " + frames);
    }

    @Override
    public void close() {
        socket.abort();
    }
}
