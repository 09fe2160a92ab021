package dev.tideline.it.fanout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bson.BsonDocument;
import org.bson.BsonString;
import dev.tideline.it.support.Waits;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Debian's {@code chromium}, headless, opened on one page and driven through the DevTools
 * protocol: {@link #evaluate(String)} runs an expression in the page and returns its value.
 */
public final class HeadlessChromium implements AutoCloseable {
    private static final Pattern DEVTOOLS = Pattern.compile("DevTools listening on (ws://[^\\s]+)");
    private final Process process;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final ConcurrentHashMap<Integer, CompletableFuture<BsonDocument>> pending = new ConcurrentHashMap<>();

    private HeadlessChromium(Process process, WebSocket socket) {
        this.process = process;
        this.socket = socket;
    }

    public static HeadlessChromium open(String url, Path profileDir) throws Exception {
        String binary = System.getenv().getOrDefault("CHROMIUM", "chromium");
        Files.createDirectories(profileDir);
        Process p;
        try {
            p = new ProcessBuilder(binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--no-first-run", "--remote-debugging-port=0", "--user-data-dir=" + profileDir, url)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run '" + binary + "': install Debian's chromium package "
                    + "(apt-get install -y chromium; .ci/run does) or set CHROMIUM to a Chromium binary", e);
        }
        String browserWs = null;
        BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (String line; browserWs == null && System.nanoTime() < deadline && (line = err.readLine()) != null; ) {
            Matcher m = DEVTOOLS.matcher(line);
            if (m.find()) {
                browserWs = m.group(1);
            }
        }
        if (browserWs == null) {
            p.destroyForcibly();
            throw new IllegalStateException("chromium did not print its DevTools address");
        }
        GatewayProcess.drain(err);
        URI base = URI.create(browserWs.replaceFirst("^ws://", "http://"));
        String[] page = new String[1];
        HttpClient http = HttpClient.newHttpClient();
        Duration left = Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
        try {
            Waits.await("chromium's page target", left, Duration.ofMillis(100)).until(() -> {
                String list = http.send(HttpRequest.newBuilder(base.resolve("/json/list")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                for (var v : BsonDocument.parse("{\"l\":" + list + "}").getArray("l")) {
                    BsonDocument target = v.asDocument();
                    if ("page".equals(target.getString("type").getValue())) {
                        page[0] = target.getString("webSocketDebuggerUrl").getValue();
                    }
                }
                return page[0] != null;
            });
        } catch (ConditionTimeoutException e) {
            // reported below
        }
        String pageWs = page[0];
        if (pageWs == null) {
            p.destroyForcibly();
            throw new IllegalStateException("chromium opened no page");
        }
        HeadlessChromium[] self = new HeadlessChromium[1];
        WebSocket ws = http.newWebSocketBuilder().buildAsync(URI.create(pageWs), new WebSocket.Listener() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                text.append(data);
                if (last) {
                    BsonDocument msg = BsonDocument.parse(text.toString());
                    text.setLength(0);
                    if (msg.containsKey("id") && self[0] != null) {
                        CompletableFuture<BsonDocument> f = self[0].pending.remove(msg.getNumber("id").intValue());
                        if (f != null) {
                            f.complete(msg);
                        }
                    }
                }
                w.request(1);
                return null;
            }
        }).get(30, TimeUnit.SECONDS);
        self[0] = new HeadlessChromium(p, ws);
        return self[0];
    }

    /** The value of a JavaScript expression in the page, as a string ("" for null/undefined). */
    public String evaluate(String expression) throws Exception {
        return execute("String((" + expression + ") ?? '')");
    }

    /** Runs a script in the page; returns its completion value if it is a string. */
    public String execute(String script) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<BsonDocument> f = new CompletableFuture<>();
        pending.put(id, f);
        BsonDocument params = new BsonDocument("expression", new BsonString(script))
                .append("returnByValue", org.bson.BsonBoolean.TRUE);
        BsonDocument call = new BsonDocument("id", new org.bson.BsonInt32(id))
                .append("method", new BsonString("Runtime.evaluate")).append("params", params);
        socket.sendText(call.toJson(), true).get(10, TimeUnit.SECONDS);
        BsonDocument res = f.get(30, TimeUnit.SECONDS);
        BsonDocument result = res.getDocument("result");
        if (result.containsKey("exceptionDetails")) {
            throw new AssertionError("the page threw: " + result.getDocument("exceptionDetails").toJson());
        }
        BsonDocument value = result.getDocument("result");
        return value.containsKey("value") && value.get("value").isString() ? value.get("value").asString().getValue() : "";
    }

    /** Evaluates until the value contains {@code expected}; returns how long it took. */
    public Duration awaitContains(String expression, String expected, Duration timeout) throws Exception {
        long start = System.nanoTime();
        Waits.until(timeout, Duration.ofMillis(100), () -> {
            try {
                return evaluate(expression);
            } catch (AssertionError notYet) {
                // the page is still loading: the elements the expression reads are not there yet
                return notYet.getMessage();
            }
        }, last -> last.contains(expected),
                last -> "the page never showed '" + expected + "' within " + timeout.toSeconds() + " s; it shows: " + last);
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Override
    public void close() {
        socket.abort();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static Duration timeout() {
        return Duration.ofSeconds(60);
    }
}
