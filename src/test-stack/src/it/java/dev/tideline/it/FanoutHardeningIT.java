package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.fanout.config.DeliverySettings;
import dev.tideline.fanout.config.GatewaySettings;
import dev.tideline.fanout.config.HttpSettings;
import dev.tideline.fanout.config.ResumeSettings;
import dev.tideline.it.fanout.ChangeProducer;
import dev.tideline.it.fanout.FanoutFixture;
import dev.tideline.it.fanout.GatewayProcess;
import dev.tideline.fanout.http.RawHttp;
import dev.tideline.it.fanout.SseClient;
import dev.tideline.it.support.TestStack;
import java.io.Reader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * Each hardening limit of the gateway, asserted on a running gateway: the shipped secret, the Origin
 * allow-list (SSE and WebSocket), the request read time-out, the connection caps, the channel cap,
 * pings within the byte budget, history bounded by bytes, poison records, and /stats behind an
 * operator token.
 */
class FanoutHardeningIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private static FanoutFixture gateway(String prefix, Map<String, String> overrides) throws Exception {
        TestStack stack = TestStack.shared();
        stack.createTopic(prefix + ".shop.items", 1);
        return FanoutFixture.start(stack.bootstrapServers(), prefix, overrides);
    }

    private static int port(FanoutFixture fx) {
        return fx.gateway().port();
    }

    @Test
    void theShippedSecretIsRefused() throws Exception {
        Properties shipped = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of("config/fanout-gateway.properties"))) {
            shipped.load(r);
        }
        Map<String, String> settings = new HashMap<>();
        shipped.stringPropertyNames().forEach(k -> settings.put(k, shipped.getProperty(k)));
        settings.put(GatewaySettings.HTTP_PORT, "0");
        settings.put(GatewaySettings.KAFKA_BOOTSTRAP, TestStack.shared().bootstrapServers());
        String refusal = "";
        try (GatewayProcess g = GatewayProcess.start(TestStack.shared().workDir().resolve("fanout-shipped"), settings, List.of())) {
            refusal = "it started: " + g.baseUrl();
        } catch (IllegalStateException e) {
            refusal = e.getMessage();
        }
        System.out.println("fanout hardening: the shipped configuration as is: " + refusal.replace('\n', ' '));
        assertThat(refusal).contains("exited without serving").contains("auth.hmac.secret").contains("example value shipped");
    }

    @Test
    void browserPagesOfOtherOriginsAreRefusedOnSseAndWebSocket() throws Exception {
        try (FanoutFixture fx = gateway("fhorg", Map.of(HttpSettings.ALLOWED_ORIGINS, "https://app.example.com"))) {
            String path = FanoutFixture.ssePath(fx.token("acme", "shop.*.acme"), "shop.items.acme");
            String own = "http://127.0.0.1:" + port(fx);

            assertThat(sse(fx, path, "https://evil.example").statusCode()).isEqualTo(403);
            Head allowed = sse(fx, path, "https://app.example.com");
            assertThat(allowed.statusCode()).isEqualTo(200);
            assertThat(allowed.allowOrigin()).contains("https://app.example.com");
            assertThat(sse(fx, path, own).statusCode()).isEqualTo(200);
            assertThat(sse(fx, path, null).statusCode()).isEqualTo(200);

            String wsPath = path.replace("/sse?", "/ws?");
            assertThat(wsStatus(fx, wsPath, "https://evil.example")).startsWith("HTTP/1.1 403");
            assertThat(wsStatus(fx, wsPath, "https://app.example.com")).startsWith("HTTP/1.1 101");
            assertThat(wsStatus(fx, wsPath, own)).startsWith("HTTP/1.1 101");
            assertThat(fx.gateway().stats().refusedCount("403:origin-not-allowed")).isEqualTo(2);
        }
    }

    @Test
    void aRequestThatTricklesInIsCutOffAtTheReadTimeout() throws Exception {
        try (FanoutFixture fx = gateway("fhslow", Map.of(HttpSettings.REQUEST_TIMEOUT_MS, "1000"))) {
            long start = System.nanoTime();
            try (Socket slow = RawHttp.connect("127.0.0.1", port(fx)); Socket silent = RawHttp.connect("127.0.0.1", port(fx))) {
                String request = "GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: " + "a".repeat(40);
                String answer = null;
                slow.setSoTimeout(10);
                for (int i = 0; i < request.length() && answer == null; i++) {
                    try {
                        RawHttp.send(slow, request.substring(i, i + 1)); // one byte every 100 ms: 5 s for the whole line
                    } catch (java.io.IOException closed) {
                        break;
                    }
                    Thread.sleep(100);
                }
                answer = RawHttp.readUntilClosed(slow, 5000);
                long cutAfter = Duration.ofNanos(System.nanoTime() - start).toMillis();
                String silentAnswer = RawHttp.readUntilClosed(silent, 5000);
                System.out.printf("fanout hardening: a request trickling one byte per 100 ms was answered after %d ms: %s%n",
                        cutAfter, answer.lines().findFirst().orElse(""));
                assertThat(answer).startsWith("HTTP/1.1 408").contains("request-timeout");
                assertThat(silentAnswer).startsWith("HTTP/1.1 408");
                assertThat(cutAfter).isBetween(900L, 4000L);
            }
            assertThat(fx.gateway().stats().refusedCount("408:request-timeout")).isEqualTo(2);
        }
    }

    @Test
    void connectionsAreCappedInAllAndPerAddress() throws Exception {
        try (FanoutFixture fx = gateway("fhcap", Map.of(HttpSettings.MAX_CONNECTIONS, "8", HttpSettings.MAX_CONNECTIONS_PER_ADDRESS, "5",
                HttpSettings.REQUEST_TIMEOUT_MS, "60000"))) {
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < 5; i++) {
                    held.add(RawHttp.connect("127.0.0.1", port(fx)));
                }
                // a settle time, not observed: each connection is admitted on its event loop, and the gateway does not
                // report admitted connections (its ConnectionLimiter's count is not reachable from outside)
                Waits.pause(Duration.ofMillis(500), "let the server admit these five first");
                Socket sixth = RawHttp.connect("127.0.0.1", port(fx));
                assertThat(RawHttp.readUntilClosed(sixth, 5000)).startsWith("HTTP/1.1 503").contains("too-many-connections-from-address");
                for (int i = 0; i < 3; i++) {
                    held.add(RawHttp.connect("127.0.0.2", port(fx)));
                }
                Waits.pause(Duration.ofMillis(500), "let the server admit these three first (as above)");
                Socket ninth = RawHttp.connect("127.0.0.3", port(fx));
                assertThat(RawHttp.readUntilClosed(ninth, 5000)).startsWith("HTTP/1.1 503").contains("\"too-many-connections\"");
                // the held ones are still served
                RawHttp.send(held.get(0), "GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(RawHttp.readUntilClosed(held.get(0), 5000)).startsWith("HTTP/1.1 200");
                // and a closed one frees its place
                Socket again = connectWhenFree(fx);
                RawHttp.send(again, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(RawHttp.readUntilClosed(again, 5000)).startsWith("HTTP/1.1 200");
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
            System.out.println("fanout hardening: connection caps: " + fx.gateway().stats().refusedByReason());
        }
    }

    @Test
    void aWildcardTokenCannotCreateChannelsWithoutLimit() throws Exception {
        try (FanoutFixture fx = gateway("fhflood", Map.of(DeliverySettings.CHANNELS_MAX, "4"))) {
            String token = fx.token("acme", "shop.*.acme");
            List<SseClient> held = new ArrayList<>();
            for (int i = 1; i <= 4; i++) {
                held.add(fx.subscribe(token, "shop.c" + i + ".acme"));
            }
            int refused = 0;
            for (int i = 5; i <= 200; i++) {
                try (SseClient c = SseClient.open(fx.baseUrl(), FanoutFixture.ssePath(token, "shop.c" + i + ".acme"), Map.of())) {
                    if (c.status() == 503 && c.errorBody().contains("channels-full")) {
                        refused++;
                    }
                }
            }
            assertThat(refused).isEqualTo(196);
            assertThat(fx.gateway().stats().refusedCount("503:channels-full")).isEqualTo(196);
            held.forEach(SseClient::close);
            // channels nobody listens to and with nothing to keep are swept: room again
            SseClient[] admitted = new SseClient[1];
            Waits.until(WAIT, Duration.ofMillis(200), () -> {
                SseClient c = SseClient.open(fx.baseUrl(), FanoutFixture.ssePath(token, "shop.c999.acme"), Map.of());
                if (c.status() == 200) {
                    admitted[0] = c;
                    return "200";
                }
                c.close();
                return c.status() + " " + c.errorBody();
            }, answer -> answer.equals("200"), answer -> "no room for a new channel within " + WAIT + " after the sweep; last answer: "
                    + answer);
            SseClient later = admitted[0];
            assertThat(later).isNotNull();
            later.close();
            BsonDocument stats = stats(fx);
            System.out.println("fanout hardening: channel flood: 196 of 196 extra channels refused; after the sweep: channels "
                    + stats.getNumber("channels").intValue() + ", evicted " + stats.getNumber("channelsEvicted").intValue());
            assertThat(stats.getNumber("channels").intValue()).isLessThanOrEqualTo(4);
        }
    }

    @Test
    void aClientThatFloodsPingsAndReadsNothingIsCutOffWithinItsBudget() throws Exception {
        try (FanoutFixture fx = gateway("fhping", Map.of(DeliverySettings.QUEUE_MAX_BYTES, "16384",
                DeliverySettings.SEND_BUFFER_BYTES, "4096"))) {
            String path = FanoutFixture.ssePath(fx.token("acme", "shop.*.acme"), "shop.items.acme").replace("/sse?", "/ws?");
            long heapBefore = stats(fx).getNumber("heapUsedBytes").longValue();
            int pings = 0;
            try (Socket ws = new Socket()) {
                ws.setReceiveBufferSize(4096);
                ws.connect(new java.net.InetSocketAddress("127.0.0.1", port(fx)), 5000);
                RawHttp.send(ws, RawHttp.webSocketUpgrade("127.0.0.1:" + port(fx), path, null));
                assertThat(RawHttp.readHead(ws, 5000)).startsWith("HTTP/1.1 101");
                byte[] ping = RawHttp.pingFrame(125);
                ws.setSoTimeout(1);
                try {
                    while (pings < 200_000) {
                        ws.getOutputStream().write(ping);
                        pings++;
                        if (fx.gateway().stats().disconnects("slow-consumer") > 0) {
                            break;
                        }
                    }
                } catch (java.io.IOException closedByTheGateway) {
                    // what we expect sooner or later
                }
            }
            Waits.until("a slow-consumer disconnect", WAIT, Duration.ofMillis(50),
                    () -> fx.gateway().stats().disconnects("slow-consumer"), d -> d > 0);
            System.out.printf("fanout hardening: %d pings of 125 bytes sent without reading a pong; the gateway closed the "
                    + "connection as %s; heap %d MiB before, %d MiB after%n", pings, fx.gateway().stats().disconnectsByReason(),
                    heapBefore >> 20, stats(fx).getNumber("heapUsedBytes").longValue() >> 20);
            assertThat(fx.gateway().stats().disconnects("slow-consumer")).isEqualTo(1);
            assertThat(pings).isLessThan(200_000);
        }
    }

    @Test
    void poisonRecordsAreSkippedAndCountedAndTheNextChangeIsDelivered() throws Exception {
        TestStack stack = TestStack.shared();
        try (FanoutFixture fx = gateway("fhpoison", Map.of());
             ChangeProducer producer = new ChangeProducer(stack.bootstrapServers(), "fhpoison.shop.items", "shop", "items")) {
            SseClient c = fx.subscribe(fx.token("acme", "shop.*.acme"), "shop.items.acme");
            String deep = "{\"v\":1,\"op\":\"insert\",\"db\":\"shop\",\"coll\":\"items\",\"id\":1,\"document\":"
                    + "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000) + ",\"wallTime\":{\"$date\":0}}";
            producer.raw("acme", 1, deep.getBytes(StandardCharsets.UTF_8));
            producer.raw("acme", 2, "{not json".getBytes(StandardCharsets.UTF_8));
            ChangeEvent fine = new ChangeEvent(Op.INSERT, new Namespace("shop", "items"), new BsonInt32(3),
                    new BsonDocument("_id", new BsonInt32(3)).append("tenant", new BsonString("acme")), null, System.currentTimeMillis(), null);
            producer.raw("acme", 3, EnvelopeCodec.toBson(fine).toJson().getBytes(StandardCharsets.UTF_8));
            List<SseClient.Event> got = c.await("change", 1, WAIT);
            assertThat(got.get(0).json().getDocument("change").get("id").asNumber().intValue()).isEqualTo(3);
            System.out.println("fanout hardening: poison records: skipped " + fx.gateway().stats().skippedByReason()
                    + ", health " + fx.gateway().health().state());
            assertThat(fx.gateway().stats().skippedCount("too-deep")).isEqualTo(1);
            assertThat(fx.gateway().stats().skippedCount("malformed")).isEqualTo(1);
            assertThat(fx.gateway().health().canDeliver()).isTrue();
            c.close();
        }
    }

    @Test
    void theHistoryStaysWithinItsBytesAndOlderChangesComeFromKafka() throws Exception {
        TestStack stack = TestStack.shared();
        try (FanoutFixture fx = gateway("fhbytes", Map.of(GatewaySettings.VALUE_FORMAT, "bson",
                ResumeSettings.HISTORY_MAX_BYTES, "16384", ResumeSettings.HISTORY_TOTAL_MAX_BYTES, "65536"));
             ChangeProducer producer = new ChangeProducer(stack.bootstrapServers(), "fhbytes.shop.items", "shop", "items")) {
            String token = fx.token("acme", "shop.*.acme");
            SseClient first = fx.subscribe(token, "shop.items.acme");
            List<ChangeProducer.Sent> sent = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                sent.add(producer.change(i % 2 == 0 ? "acme" : "t" + (i % 10), i, 1));
            }
            List<SseClient.Event> got = first.await("change", 150, WAIT);
            fx.awaitPublished(300, WAIT);
            long bytes = stats(fx).getNumber("historyBytes").longValue();
            // resume from the very first change: long evicted from memory, read back from Kafka
            SseClient resumed = SseClient.open(fx.baseUrl(), FanoutFixture.ssePath(token, "shop.items.acme"),
                    Map.of("Last-Event-ID", got.get(0).id()));
            List<SseClient.Event> replayed = resumed.await("change", 149, WAIT);
            System.out.printf("fanout hardening: history holds %d bytes (bound 65536) after 300 changes; a resume from the "
                    + "first change got %d changes (%s)%n", bytes, replayed.size(),
                    resumed.events("subscribed").get(0).json().getString("resume").getValue());
            assertThat(bytes).isLessThanOrEqualTo(65_536);
            assertThat(resumed.events("subscribed").get(0).json().getString("resume").getValue()).isEqualTo("kafka");
            assertThat(replayed.stream().map(e -> e.json().get("offset").asNumber().longValue()).toList())
                    .isEqualTo(got.subList(1, 150).stream().map(e -> e.json().get("offset").asNumber().longValue()).toList());
            first.close();
            resumed.close();
        }
    }

    @Test
    void statsNeedAnOperatorTokenWhileHealthStaysOpen() throws Exception {
        try (FanoutFixture fx = gateway("fhstats", Map.of())) {
            assertThat(get(fx, "/stats", null).statusCode()).isEqualTo(401);
            HttpResponse<String> subscriberToken = get(fx, "/stats", fx.token("acme", "shop.*.acme"));
            assertThat(subscriberToken.statusCode()).isEqualTo(401);
            // signed with the subscriber key, which operator tokens are not
            assertThat(subscriberToken.body()).contains("bad-signature");
            HttpResponse<String> admin = get(fx, "/stats", fx.gateway().issueAdminToken(Duration.ofMinutes(1)));
            assertThat(admin.statusCode()).isEqualTo(200);
            assertThat(BsonDocument.parse(admin.body()).containsKey("deliveries")).isTrue();
            HttpResponse<String> health = get(fx, "/health", null);
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(BsonDocument.parse(health.body()).getString("status").getValue()).isEqualTo("ok");
            assertThat(health.body()).doesNotContain("deliveries").doesNotContain("lagRecords").doesNotContain("lastError");
            HttpResponse<String> operatorHealth = get(fx, "/health", fx.gateway().issueAdminToken(Duration.ofMinutes(1)));
            assertThat(operatorHealth.body()).contains("lagRecords");
        }
    }

    /** Status and CORS header of an SSE subscription request (an accepted stream never ends: its head only). */
    private record Head(int statusCode, java.util.Optional<String> allowOrigin) {
    }

    private static Head sse(FanoutFixture fx, String path, String origin) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(fx.baseUrl() + path)).timeout(Duration.ofSeconds(10));
        if (origin != null) {
            b.header("Origin", origin);
        }
        HttpResponse<java.io.InputStream> res = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
        res.body().close();
        return new Head(res.statusCode(), res.headers().firstValue("Access-Control-Allow-Origin"));
    }

    private static String wsStatus(FanoutFixture fx, String path, String origin) throws Exception {
        try (Socket s = RawHttp.connect("127.0.0.1", port(fx))) {
            RawHttp.send(s, RawHttp.webSocketUpgrade("127.0.0.1:" + port(fx), path, origin));
            return RawHttp.readHead(s, 10_000);
        }
    }

    private static HttpResponse<String> get(FanoutFixture fx, String path, String bearer) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(fx.baseUrl() + path)).timeout(Duration.ofSeconds(10));
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static BsonDocument stats(FanoutFixture fx) throws Exception {
        return BsonDocument.parse(get(fx, "/stats", fx.gateway().issueAdminToken(Duration.ofMinutes(1))).body());
    }

    /** A connection from a fresh address once the total allows one (refused ones are answered at once). */
    private static Socket connectWhenFree(FanoutFixture fx) throws Exception {
        Socket[] admitted = new Socket[1];
        Waits.until(WAIT, Duration.ofMillis(100), () -> {
            Socket s = RawHttp.connect("127.0.0.4", port(fx));
            s.setSoTimeout(300);
            try {
                int first = s.getInputStream().read();
                s.close(); // answered at once: refused
                return "refused (answer began with " + first + ")";
            } catch (java.net.SocketTimeoutException notAnswered) {
                admitted[0] = s;
                return "admitted";
            }
        }, seen -> seen.equals("admitted"), seen -> "no place freed within " + WAIT.toSeconds() + " s; last connection: " + seen);
        return admitted[0];
    }
}
