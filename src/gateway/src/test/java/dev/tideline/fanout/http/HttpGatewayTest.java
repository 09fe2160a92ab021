package dev.tideline.fanout.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.fanout.auth.TokenKeys;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.quota.TenantQuotas;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ConsumerProgress;
import dev.tideline.fanout.channel.HistoryLimits;
import dev.tideline.fanout.channel.NamespaceTopics;
import dev.tideline.fanout.resume.CatchUpExecutor;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP server's admission limits on a real socket, without Kafka. */
class HttpGatewayTest {
    private final GatewayStats stats = new GatewayStats();
    private final JwtVerifier verifier = new JwtVerifier("0123456789abcdef0123456789abcdef-test".getBytes(StandardCharsets.UTF_8), 0);
    private final JwtVerifier operators = new JwtVerifier("operator-key-operator-key-operator-key!".getBytes(StandardCharsets.UTF_8), 0);
    private static final String HEALTH_INTERNALS = "{\"status\":\"starting\",\"consumer\":{\"lastError\":\"broker kafka-1.internal:9092\"}}";
    private final ConsumerProgress progress = new ConsumerProgress();
    private final List<AutoCloseable> open = new ArrayList<>();

    private static final TopicPartition C1 = new TopicPartition("tl.shop.c1", 0);
    private ChannelHub hub;

    private HttpGateway server(int maxConnections, int perAddress, long requestTimeoutMs, List<String> origins) throws Exception {
        return server(maxConnections, perAddress, requestTimeoutMs, origins, new TenantQuotas.Limits(1000, 1000, 1000), () -> {
            throw new IllegalStateException("no Kafka in this test");
        });
    }

    private HttpGateway server(int maxConnections, int perAddress, long requestTimeoutMs, List<String> origins, TenantQuotas.Limits quotas,
                               Supplier<Consumer<byte[], byte[]>> kafka) throws Exception {
        hub = new ChannelHub(new HistoryLimits(10, 60_000, 1 << 20, 1 << 20), 100, 0, progress, new NamespaceTopics(),
                System::currentTimeMillis);
        CatchUpExecutor catchUp = new CatchUpExecutor(1, 10, kafka, new CatchUpExecutor.KafkaRangeReaderSettings(ValueFormat.BSON, 100, 10, 0),
                stats);
        HttpGateway g = new HttpGateway("127.0.0.1", 0, 0, new HttpGateway.Admission(new ConnectionLimiter(maxConnections, perAddress),
                requestTimeoutMs), new HttpGateway.Budgets(1 << 16, 1 << 20), 4, new HttpGateway.Origins(origins, List.of()),
                new HttpGateway.Services(hub, new TokenKeys(verifier, operators), new TenantQuotas(quotas), stats, catchUp, () -> "{}",
                        new HttpGateway.Health(() -> false, internals -> internals ? HEALTH_INTERNALS : "{\"status\":\"starting\"}")));
        open.add(catchUp);
        open.add(g);
        return g;
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private static String get(Socket s, String path) throws Exception {
        RawHttp.send(s, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        return RawHttp.readUntilClosed(s, 5000);
    }

    @Test
    void capsConnectionsPerAddressAndInAll() throws Exception {
        HttpGateway g = server(4, 2, 60_000, List.of());
        List<Socket> held = new ArrayList<>();
        try {
            held.add(RawHttp.connect("127.0.0.1", g.port()));
            held.add(RawHttp.connect("127.0.0.1", g.port()));
            Thread.sleep(300); // the server has taken them
            Socket third = RawHttp.connect("127.0.0.1", g.port());
            assertThat(RawHttp.readUntilClosed(third, 5000)).startsWith("HTTP/1.1 503").contains("too-many-connections-from-address");
            held.add(RawHttp.connect("127.0.0.2", g.port()));
            held.add(RawHttp.connect("127.0.0.3", g.port()));
            Thread.sleep(300);
            Socket fifth = RawHttp.connect("127.0.0.4", g.port());
            assertThat(RawHttp.readUntilClosed(fifth, 5000)).startsWith("HTTP/1.1 503").contains("\"too-many-connections\"");
            // the held ones are served, and one that closes frees its place
            assertThat(get(held.get(0), "/health")).startsWith("HTTP/1.1 503"); // not started: /health says so
            Thread.sleep(300);
            assertThat(get(RawHttp.connect("127.0.0.4", g.port()), "/health")).startsWith("HTTP/1.1 503").contains("starting");
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
        assertThat(stats.refusedCount("503:too-many-connections-from-address")).isEqualTo(1);
        assertThat(stats.refusedCount("503:too-many-connections")).isEqualTo(1);
    }

    @Test
    void aRequestThatDoesNotArriveInTimeGets408() throws Exception {
        HttpGateway g = server(100, 100, 500, List.of());
        try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
            long start = System.nanoTime();
            RawHttp.send(s, "GET /health HTTP/1.1\r\nHost: x\r\n");
            String answer = RawHttp.readUntilClosed(s, 5000);
            assertThat(answer).startsWith("HTTP/1.1 408");
            assertThat((System.nanoTime() - start) / 1_000_000).isBetween(400L, 4000L);
        }
        try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
            // a request that arrives in time is not cut off later
            assertThat(get(s, "/health")).startsWith("HTTP/1.1 503");
        }
    }

    @Test
    void subscriptionsFromOtherOriginsStatsWithoutTokenAndBeforeKafkaAreRefused() throws Exception {
        HttpGateway g = server(100, 100, 60_000, List.of("https://app.example.com"));
        String token = verifier.issue(null, "acme", List.of("shop.*.acme"), System.currentTimeMillis() / 1000 + 60);
        try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
            RawHttp.send(s, "GET /sse?channel=shop.items.acme&token=" + token + " HTTP/1.1\r\nHost: 127.0.0.1:" + g.port()
                    + "\r\nOrigin: https://evil.example\r\n\r\n");
            assertThat(RawHttp.readUntilClosed(s, 5000)).startsWith("HTTP/1.1 403").contains("origin-not-allowed");
        }
        try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
            RawHttp.send(s, "GET /sse?channel=shop.items.acme&token=" + token + " HTTP/1.1\r\nHost: 127.0.0.1:" + g.port()
                    + "\r\nOrigin: https://app.example.com\r\n\r\n");
            assertThat(RawHttp.readUntilClosed(s, 5000)).startsWith("HTTP/1.1 503").contains("starting");
        }
        try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
            assertThat(get(s, "/stats")).startsWith("HTTP/1.1 401");
        }
        try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
            RawHttp.send(s, "GET /stats HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + operators.issueAdmin(System.currentTimeMillis() / 1000 + 60)
                    + "\r\n\r\n");
            assertThat(RawHttp.readUntilClosed(s, 5000)).startsWith("HTTP/1.1 200");
        }
        try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
            // an operator token signed with the subscriber key is no operator token
            RawHttp.send(s, "GET /stats HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + verifier.issueAdmin(System.currentTimeMillis() / 1000 + 60)
                    + "\r\n\r\n");
            assertThat(RawHttp.readUntilClosed(s, 5000)).startsWith("HTTP/1.1 401").contains("bad-signature");
        }
    }

    /** Opens a subscription and returns its socket once the response head has come; the head is in {@code heads}. */
    private static Socket subscribe(HttpGateway g, String query, List<String> heads) throws Exception {
        Socket s = RawHttp.connect("127.0.0.1", g.port());
        RawHttp.send(s, "GET /sse?" + query + " HTTP/1.1\r\nHost: x\r\n\r\n");
        heads.add(RawHttp.readHead(s, 5000).lines().findFirst().orElse("") + " " + RawHttp.readUntil(s, "\"error\"", 200));
        return s;
    }

    @Test
    void oneTenantAtItsQuotasIsRefusedWhileAnotherSubscribesAndReceives() throws Exception {
        CountDownLatch kafkaAnswers = new CountDownLatch(1);
        // a Kafka that does not answer: a read-back, once started, stays in flight until the end of the test
        HttpGateway g = server(100, 100, 60_000, List.of(), new TenantQuotas.Limits(3, 2, 1), () -> {
            try {
                kafkaAnswers.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("no Kafka in this test");
        });
        progress.assigned(Set.of(C1));
        progress.started(C1, 10); // the gateway started reading at 10: from=earliest reads 0..10 back from Kafka
        progress.markReady();
        long exp = System.currentTimeMillis() / 1000 + 600;
        String acme = "token=" + verifier.issue(null, "acme", List.of("shop.*.acme"), exp);
        String globex = "token=" + verifier.issue(null, "globex", List.of("shop.*.globex"), exp);
        List<String> heads = new ArrayList<>();
        List<Socket> held = new ArrayList<>();
        try {
            held.add(subscribe(g, acme + "&channel=shop.c1.acme&from=earliest", heads)); // its catch-up: in flight
            held.add(subscribe(g, acme + "&channel=shop.c2.acme", heads));
            held.add(subscribe(g, acme + "&channel=shop.c3.acme", heads)); // a third channel
            held.add(subscribe(g, acme + "&channel=shop.c1.acme&from=earliest", heads)); // a second catch-up
            held.add(subscribe(g, acme + "&channel=shop.c1.acme", heads)); // live, on a channel it holds: the third connection
            held.add(subscribe(g, acme + "&channel=shop.c2.acme", heads)); // a fourth connection
            // globex: every kind of subscription acme no longer may make
            Socket live = subscribe(g, globex + "&channel=shop.c1.globex", heads);
            held.add(live);
            held.add(subscribe(g, globex + "&channel=shop.c2.globex&from=earliest", heads)); // queued behind acme's read-back
            held.add(subscribe(g, globex + "&channel=shop.c2.globex", heads));
            assertThat(heads).extracting(h -> h.startsWith("HTTP/1.1 200") ? "200" : h.replaceAll("(?s)^HTTP/1.1 (\\d+).*\"error\":\"([^\"]+)\".*$", "$1:$2"))
                    .containsExactly("200", "200", "429:tenant-channels", "429:tenant-catch-ups", "200", "429:tenant-connections",
                            "200", "200", "200");
            hub.publish(new ChannelName("shop", "c1", "globex"), C1, 10, System.currentTimeMillis(), "{\"op\":\"insert\"}");
            assertThat(RawHttp.readUntil(live, "\"offset\":10", 5000)).contains("event: change").contains("\"channel\":\"shop.c1.globex\"");
            assertThat(stats.refusedCount("429:tenant-connections")).isEqualTo(1);
        } finally {
            kafkaAnswers.countDown();
            for (Socket s : held) {
                s.close();
            }
        }
        // acme's share comes back as its subscriptions close
        List<String> later = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 10_000;
        do {
            later.clear();
            subscribe(g, acme + "&channel=shop.c3.acme&channel=shop.c4.acme", later).close();
        } while (!later.get(0).startsWith("HTTP/1.1 200") && System.currentTimeMillis() < deadline);
        assertThat(later.get(0)).startsWith("HTTP/1.1 200");
    }

    @Test
    void aForgedHostHeaderDoesNotMakeAnotherOriginTheGatewaysOwn() throws Exception {
        HttpGateway g = server(100, 100, 60_000, List.of());
        String token = verifier.issue(null, "acme", List.of("shop.*.acme"), System.currentTimeMillis() / 1000 + 60);
        for (String path : List.of("/sse", "/ws")) {
            try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
                // a page of evil.example whose request claims to be for evil.example: before, Origin == http://<Host> passed
                RawHttp.send(s, "GET " + path + "?channel=shop.items.acme&token=" + token + " HTTP/1.1\r\nHost: evil.example\r\n"
                        + "Origin: http://evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
                assertThat(RawHttp.readUntilClosed(s, 5000)).startsWith("HTTP/1.1 403").contains("origin-not-allowed");
            }
        }
        try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
            // the gateway's own origin (its bind address and port) passes whatever the Host header says
            RawHttp.send(s, "GET /sse?channel=shop.items.acme&token=" + token + " HTTP/1.1\r\nHost: evil.example\r\n"
                    + "Origin: http://127.0.0.1:" + g.port() + "\r\n\r\n");
            assertThat(RawHttp.readUntilClosed(s, 5000)).startsWith("HTTP/1.1 503").contains("starting");
        }
        assertThat(stats.refusedCount("403:origin-not-allowed")).isEqualTo(2);
    }

    @Test
    void healthShowsItsInternalsToOperatorsOnly() throws Exception {
        HttpGateway g = server(100, 100, 60_000, List.of());
        long exp = System.currentTimeMillis() / 1000 + 60;
        String anyone;
        try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
            anyone = get(s, "/health");
        }
        String subscriber;
        try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
            subscriber = get(s, "/health?token=" + verifier.issue(null, "acme", List.of("shop.*.acme"), exp));
        }
        String operator;
        try (Socket s = RawHttp.connect("127.0.0.1", g.port())) {
            RawHttp.send(s, "GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + operators.issueAdmin(exp) + "\r\n\r\n");
            operator = RawHttp.readUntilClosed(s, 5000);
        }
        assertThat(anyone).startsWith("HTTP/1.1 503").contains("\"status\":\"starting\"").doesNotContain("lastError").doesNotContain("kafka-1");
        assertThat(subscriber).startsWith("HTTP/1.1 503").doesNotContain("lastError");
        assertThat(operator).startsWith("HTTP/1.1 503").contains("\"lastError\":\"broker kafka-1.internal:9092\"");
    }
}
