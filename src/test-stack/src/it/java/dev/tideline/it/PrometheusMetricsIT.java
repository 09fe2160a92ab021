package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.it.fanout.FanoutFixture;
import dev.tideline.it.fanout.GatewayProcess;
import dev.tideline.it.fanout.SseClient;
import dev.tideline.it.support.MetricsAgent;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.monitoring.MetricsCatalog;
import dev.tideline.monitoring.PanelPage;
import dev.tideline.monitoring.Scrape;
import dev.tideline.sandbox.VerifyConnectorConfig;
import dev.tideline.standin.MongoFixture;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * The worker runs with the Prometheus JMX exporter agent and monitoring/prometheus/tideline-jmx-exporter.yml (every test
 * worker does: ConnectWorker). While a source copies and streams two collections, a sink applies them (refuses a
 * record into its DLQ and skips a replayed older change as stale), a scheduled verify compares the two sides and a
 * two-cluster peer link runs (its sinks refusing a malformed record), /metrics is scraped every second: every metric
 * of docs/metrics.md is there, every Grafana query names a metric that was scraped, and the figures move. The scrapes
 * are kept in target/prometheus-it (names, the panels drawn from them, a PNG where Chromium is installed).
 */
class PrometheusMetricsIT {
    private static final String SOURCE = "prom-source";
    private static final String SINK = "prom-sink";
    private static final String VERIFY = "prom-verify";
    private static final String DB = "prom_shop";
    private static final String DEST = "prom_shop_copy";
    private static final String PREFIX = "prom";
    private static final int ORDERS = 20_000;
    private static final int CUSTOMERS = 600;
    private static final int STREAMED = 300;
    private static final Path OUT = Path.of("target", "prometheus-it");
    private static final Duration WAIT = Duration.ofSeconds(120);

    @Test
    void metricsAreScrapedFromALiveWorkerAndMove() throws Exception {
        TestStack stack = TestStack.shared();
        Files.createDirectories(OUT);
        String dlq = "prom-sink-dlq";
        stack.createTopic(dlq, 1);
        Map<String, String> orders = Map.of("connector", SOURCE, "collection", DB + ".orders");
        Map<String, String> customers = Map.of("connector", SOURCE, "collection", DB + ".customers");
        Map<String, String> sink = Map.of("connector", SINK);
        Map<String, String> verify = Map.of("connector", VERIFY);
        List<PeerItSupport.Cluster> peers = List.of(PeerItSupport.Cluster.start("prom", "A"), PeerItSupport.Cluster.start("prom", "B"));
        Map<String, String> peerSink = Map.of("connector", peers.get(0).sink());
        int gatewayMetrics = MetricsAgent.freePort();
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture destination = MongoFixture.withOplog();
             // the fanout gateway in its own JVM, with the same agent and rules as the worker, reading the source's topics
             GatewayProcess gateway = GatewayProcess.start(OUT.resolve("gateway"), FanoutFixture.settings(stack.bootstrapServers(), PREFIX, Map.of()),
                     List.of("-Xmx256m", MetricsAgent.option(gatewayMetrics)));
             Recorder recorder = new Recorder(List.of(stack.metricsUrl(0), "http://127.0.0.1:" + gatewayMetrics + "/metrics"))) {
            MongoCollection<Document> ordersColl = source.client().getDatabase(DB).getCollection("orders");
            MongoCollection<Document> customersColl = source.client().getDatabase(DB).getCollection("customers");
            List<Document> docs = new ArrayList<>();
            for (int i = 0; i < ORDERS; i++) {
                docs.add(new Document("_id", i).append("total", i % 97).append("pad", "x".repeat(100)));
            }
            ordersColl.insertMany(docs);
            docs.clear();
            for (int i = 0; i < CUSTOMERS; i++) {
                docs.add(new Document("_id", "c" + i).append("visits", 0));
            }
            customersColl.insertMany(docs);

            Map<String, String> sourceConfig = SourceItSupport.sourceConfig(source.uri(), DB, PREFIX, ValueFormat.JSON, 1);
            sourceConfig.put("batch.size", "100"); // a copy that takes a few scrapes, so its progress shows
            sourceConfig.put("tenant.field", "tenant"); // the gateway's channels: prom_shop.orders.<tenant>
            stack.rest().putConnector(SOURCE, sourceConfig);
            try {
                stack.rest().awaitRunning(SOURCE, 1, Duration.ofSeconds(60));
                recorder.await("both collections copied and streaming", WAIT, s ->
                        s.value("tideline_source_collection_phase", with(orders, "phase", "stream")) == 1
                                && s.value("tideline_source_collection_phase", with(customers, "phase", "stream")) == 1);

                Map<String, String> sinkConfig = SinkItSupport.sinkConfig(PREFIX + "." + DB + ".orders," + PREFIX + "." + DB + ".customers",
                        destination.uri(), DEST, ValueFormat.JSON);
                sinkConfig.put("errors.tolerance", "all");
                sinkConfig.put("errors.deadletterqueue.topic.name", dlq);
                sinkConfig.put("errors.deadletterqueue.topic.replication.factor", "1");
                stack.rest().putConnector(SINK, sinkConfig);
                stack.rest().putConnector(VERIFY, VerifyConnectorConfig.of(source.uri(), destination.uri(), DB, DEST, 5000));
                stack.rest().awaitRunning(SINK, 1, Duration.ofSeconds(60));
                stack.rest().awaitRunning(VERIFY, 1, Duration.ofSeconds(60));
                // a peer link between two clusters: its heartbeats make round trips while the rest runs
                PeerItSupport.startLinks(stack, peers, List.of("items"), (c, config) -> { },
                        (c, config) -> config.put("peer.heartbeat.interval.ms", "1000"));
                peers.get(0).coll("items").insertOne(new org.bson.BsonDocument("_id", new org.bson.BsonInt32(1)));
                try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(stack.bootstrapServers())) {
                    // not a peer change: both sinks (each reads every cluster's topics) refuse it into their DLQ
                    p.send(new ProducerRecord<>(peers.get(0).topic("items"), "42".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
                }

                GatewayClients clients = GatewayClients.open(gateway.baseUrl());
                // changes for ~15 s while the sink catches up (and the gateway delivers them), one record the sink refuses in the middle
                long streamStart = System.currentTimeMillis();
                for (int i = 0; i < STREAMED; i++) {
                    ordersColl.insertOne(new Document("_id", "s" + i).append("total", i).append("tenant", i % 2 == 0 ? "acme" : "globex"));
                    customersColl.updateOne(Filters.eq("_id", "c" + (i % CUSTOMERS)), Updates.inc("visits", 1));
                    if (i == STREAMED / 2) {
                        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(stack.bootstrapServers())) {
                            // valid JSON, not a change: the sink refuses it into the DLQ with its reason
                            p.send(new ProducerRecord<>(PREFIX + "." + DB + ".orders", "42".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
                        }
                    }
                    Thread.sleep(50);
                }
                System.out.printf("streamed %d inserts and %d updates in %d ms%n", STREAMED, STREAMED, System.currentTimeMillis() - streamStart);
                Scrape applied = recorder.await("every record applied by the sink", WAIT,
                        s -> s.value("tideline_sink_records_applied_total", sink) >= ORDERS + CUSTOMERS + 2 * STREAMED);
                double staleBefore = replayAnOlderChange(stack, customersColl, recorder, sink, applied);
                Scrape stale = recorder.await("the replayed older change skipped as stale", WAIT,
                        s -> s.value("tideline_sink_stale_skipped_total", sink) >= staleBefore + 1);
                Scrape equal = recorder.await("a verify run finding the destination equal, after the last change was applied", WAIT,
                        s -> s.atMillis() > applied.atMillis() + 1000 && s.value("tideline_verify_last_outcome", with(verify, "outcome", "equal")) == 1
                                && s.value("tideline_verify_last_run_seconds", verify) >= 0
                                && s.value("tideline_verify_runs_total", verify) >= orElse(applied.value("tideline_verify_runs_total", verify)) + 1);
                Scrape peerLink = recorder.await("a heartbeat round trip through the peer link and the malformed record refused", WAIT,
                        s -> s.value("tideline_peer_round_trip_lag_seconds", peerSink) >= 0
                                && s.value("tideline_peer_dlq_malformed_total", peerSink) >= 1
                                && s.value("tideline_peer_records_received_total", peerSink) >= 1);
                Scrape delivered = recorder.await("the gateway's deliveries of every streamed insert to its live clients", WAIT,
                        s -> s.value("tideline_gateway_deliveries_total", Map.of()) >= GatewayClients.DELIVERIES
                                && s.value("tideline_gateway_read_backs_total", Map.of("outcome", "kafka")) >= 1);
                recorder.stop();
                clients.close(); // after the last scrape: a tenant's series goes with its last connection
                List<Scrape> scrapes = recorder.scrapes();
                Scrape last = scrapes.get(scrapes.size() - 1);
                System.out.printf("%d scrapes over %d s; the last has %d samples%n", scrapes.size(),
                        (last.atMillis() - scrapes.get(0).atMillis()) / 1000, last.samples().size());

                // every documented name, from the live worker
                Set<String> scraped = new TreeSet<>();
                scrapes.forEach(s -> scraped.addAll(s.names()));
                Files.write(OUT.resolve("scraped-metrics.txt"), scraped);
                Files.writeString(OUT.resolve("last-scrape.txt"), recorder.lastText());
                assertThat(last.names()).as("the metrics of docs/metrics.md in the last scrape")
                        .containsAll(MetricsCatalog.documented().keySet());
                // every query of the Grafana dashboard names a metric that was scraped
                MetricsCatalog.dashboardMetrics().forEach((panel, names) ->
                        assertThat(last.names()).as("the metrics of dashboard panel '" + panel + "'").containsAll(names));

                // the figures move: records, lag, copy progress, DLQ, verify
                Scrape firstWithOrders = scrapes.stream().filter(s -> !s.find("tideline_source_collection_events_total", orders).isEmpty())
                        .findFirst().orElseThrow();
                double eventsFirst = firstWithOrders.value("tideline_source_collection_events_total", orders);
                double eventsLast = last.value("tideline_source_collection_events_total", orders);
                System.out.printf("orders events %.0f -> %.0f; copy %.0f of %.0f (first seen at %.0f); lag %.3f s; sink applied %.0f,"
                                + " lag %.3f s; DLQ %.0f; verify runs %.0f, last %.0f documents in %.3f s, outcome equal%n",
                        eventsFirst, eventsLast, last.value("tideline_source_collection_copy_documents", orders),
                        last.value("tideline_source_collection_copy_estimated_documents", orders),
                        firstWithOrders.value("tideline_source_collection_copy_documents", orders),
                        last.value("tideline_source_collection_lag_seconds", orders), last.value("tideline_sink_records_applied_total", sink),
                        last.value("tideline_sink_lag_seconds", sink), last.value("tideline_sink_dead_letter_records_total", sink),
                        equal.value("tideline_verify_runs_total", verify), equal.value("tideline_verify_last_documents", verify),
                        equal.value("tideline_verify_last_run_seconds", verify));
                assertThat(eventsLast).isGreaterThanOrEqualTo(ORDERS + STREAMED).isGreaterThan(eventsFirst);
                assertThat(scrapes.stream().anyMatch(s -> s.value("tideline_source_collection_phase", with(orders, "phase", "backfill")) == 1
                        || s.value("tideline_source_collection_copy_documents", orders) < ORDERS)).as("a scrape during the copy").isTrue();
                assertThat(last.value("tideline_source_collection_copy_documents", orders)).isEqualTo(ORDERS);
                assertThat(last.value("tideline_source_collection_copy_estimated_documents", orders)).isEqualTo(ORDERS);
                assertThat(last.value("tideline_source_collection_lag_seconds", orders)).isBetween(0.0, 300.0);
                assertThat(last.value("tideline_source_task_max_lag_seconds", Map.of("connector", SOURCE))).isBetween(0.0, 300.0);
                assertThat(scrapes.stream().mapToDouble(s -> orElse(s.value("tideline_sink_records_applied_per_second", sink))).max().orElse(0))
                        .as("a sink rate above 0 in some scrape").isPositive();
                assertThat(last.value("tideline_sink_lag_seconds", sink)).isBetween(0.0, 300.0);
                assertThat(last.value("tideline_sink_dead_letter_records_total", sink)).isEqualTo(1);
                assertThat(last.value("tideline_sink_stale_skipped_total", sink)).isGreaterThanOrEqualTo(staleBefore + 1);
                assertThat(last.value("tideline_sink_records_applied_total", sink)).as("the stale change not written")
                        .isEqualTo(stale.value("tideline_sink_records_applied_total", sink));
                System.out.printf("sink stale skipped %.0f; peer sink %s: round trip %.3f s, newest record age %.3f s, received %.0f,"
                                + " malformed %.0f, missing MAC %.0f, bad MAC %.0f, held %.0f, queued %.0f%n",
                        last.value("tideline_sink_stale_skipped_total", sink), peers.get(0).sink(),
                        peerLink.value("tideline_peer_round_trip_lag_seconds", peerSink),
                        peerLink.value("tideline_peer_apply_lag_seconds", peerSink),
                        peerLink.value("tideline_peer_records_received_total", peerSink),
                        last.value("tideline_peer_dlq_malformed_total", peerSink), last.value("tideline_peer_dlq_missing_mac_total", peerSink),
                        last.value("tideline_peer_dlq_bad_mac_total", peerSink), last.value("tideline_peer_held_documents", peerSink),
                        last.value("tideline_peer_queued_records", peerSink));
                assertThat(peerLink.value("tideline_peer_round_trip_lag_seconds", peerSink)).isBetween(0.0, 60.0);
                assertThat(last.value("tideline_peer_dlq_malformed_total", peerSink)).isEqualTo(1);
                assertThat(last.value("tideline_peer_dlq_missing_mac_total", peerSink) + last.value("tideline_peer_dlq_bad_mac_total", peerSink)
                        + last.value("tideline_peer_dlq_refused_total", peerSink)).isZero();
                assertThat(last.value("tideline_peer_apply_lag_seconds", peerSink)).isBetween(0.0, 300.0);
                assertThat(last.value("tideline_task_health", Map.of("connector", peers.get(0).sink(), "kind", "peer-sink",
                        "state", "degraded"))).as("the peer sink degraded by the refused record").isEqualTo(1);
                assertThat(equal.value("tideline_verify_last_documents", verify)).isGreaterThanOrEqualTo(ORDERS + CUSTOMERS + STREAMED);
                assertThat(equal.value("tideline_verify_last_missing", verify) + equal.value("tideline_verify_last_extra", verify)
                        + equal.value("tideline_verify_last_different", verify)).isZero();
                assertThat(last.find("tideline_task_health", Map.of()).stream().filter(s -> Set.of(SOURCE, SINK, VERIFY).contains(s.label("connector")))
                        .map(s -> s.label("connector") + ":" + s.label("state")))
                        .containsExactlyInAnyOrder(SOURCE + ":ok", SINK + ":ok", VERIFY + ":ok");

                gatewayFigures(delivered, last);
                drawPanels(scrapes);
            } finally {
                PeerItSupport.stopLinks(stack, peers);
                stack.rest().deleteConnector(VERIFY);
                stack.rest().deleteConnector(SINK);
                stack.rest().deleteConnector(SOURCE);
            }
        }
    }

    /**
     * Updates a customer once more, waits until the sink applied it, then sends the customer's earlier update again:
     * older than the destination's version, the sink skips it as stale. Returns the stale count before the replay.
     */
    private static double replayAnOlderChange(TestStack stack, MongoCollection<Document> customers, Recorder recorder,
                                              Map<String, String> sink, Scrape applied) throws Exception {
        double appliedBefore = applied.value("tideline_sink_records_applied_total", sink);
        customers.updateOne(Filters.eq("_id", "c0"), Updates.inc("visits", 1));
        Scrape before = recorder.await("the customer's newer update applied", WAIT,
                s -> s.value("tideline_sink_records_applied_total", sink) >= appliedBefore + 1);
        String topic = PREFIX + "." + DB + ".customers";
        // c0's records: its copy, its insert if the change stream saw it, its first update, its second (the newest)
        List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> ofC0 = TopicReader.readUntil(stack.bootstrapServers(), topic,
                        records -> records.stream().filter(PrometheusMetricsIT::namesC0).anyMatch(PrometheusMetricsIT::secondUpdate),
                        "c0's second update", WAIT)
                .stream().filter(PrometheusMetricsIT::namesC0).toList();
        var older = ofC0.get(ofC0.size() - 2);
        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(stack.bootstrapServers())) {
            p.send(new ProducerRecord<>(topic, null, older.key(), older.value(), older.headers())).get(30, TimeUnit.SECONDS);
        }
        return before.value("tideline_sink_stale_skipped_total", sink);
    }

    private static boolean secondUpdate(org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> r) {
        return new String(r.value(), StandardCharsets.UTF_8).contains("\"visits\":2");
    }

    private static boolean namesC0(org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> r) {
        return r.value() != null && new String(r.value(), StandardCharsets.UTF_8).contains("\"c0\"");
    }

    /** The gateway's figures, scraped from its own JVM while it delivered the streamed inserts to its clients. */
    private static void gatewayFigures(Scrape delivered, Scrape last) {
        String orders = PREFIX + "." + DB + ".orders";
        System.out.printf("gateway: %.0f connections (acme %.0f, globex %.0f), %.0f deliveries, %.0f records read, %.0f published,"
                        + " topic %s position %.0f lag %.0f; refused 401 malformed %.0f; resumes live %.0f; read-backs kafka %.0f;"
                        + " skipped no-tenant %.0f%n",
                delivered.value("tideline_gateway_connections", Map.of()), delivered.value("tideline_gateway_tenant_connections", Map.of("tenant", "acme")),
                delivered.value("tideline_gateway_tenant_connections", Map.of("tenant", "globex")),
                delivered.value("tideline_gateway_deliveries_total", Map.of()), delivered.value("tideline_gateway_records_read_total", Map.of()),
                delivered.value("tideline_gateway_changes_published_total", Map.of()), orders,
                delivered.value("tideline_gateway_topic_position", Map.of("topic", orders)),
                delivered.value("tideline_gateway_topic_lag_records", Map.of("topic", orders)),
                delivered.value("tideline_gateway_refusals_total", Map.of("status", "401", "reason", "malformed")),
                delivered.value("tideline_gateway_resumes_total", Map.of("outcome", "live")),
                delivered.value("tideline_gateway_read_backs_total", Map.of("outcome", "kafka")),
                delivered.value("tideline_gateway_skipped_records_total", Map.of("reason", "no-tenant")));
        assertThat(delivered.value("tideline_gateway_consumer_state", Map.of("state", "running"))).isEqualTo(1);
        assertThat(delivered.value("tideline_gateway_tenant_connections", Map.of("tenant", "acme"))).isEqualTo(GatewayClients.ACME);
        assertThat(delivered.value("tideline_gateway_tenant_connections", Map.of("tenant", "globex"))).isEqualTo(GatewayClients.GLOBEX);
        assertThat(delivered.value("tideline_gateway_connections", Map.of())).isEqualTo(GatewayClients.ACME + GatewayClients.GLOBEX);
        assertThat(delivered.value("tideline_gateway_refusals_total", Map.of("status", "401", "reason", "malformed"))).isEqualTo(1);
        assertThat(delivered.value("tideline_gateway_resumes_total", Map.of("outcome", "live"))).isEqualTo(GatewayClients.ACME + GatewayClients.GLOBEX - 1);
        assertThat(delivered.value("tideline_gateway_resumes_total", Map.of("outcome", "kafka"))).isEqualTo(1);
        assertThat(delivered.value("tideline_gateway_changes_published_total", Map.of())).isGreaterThanOrEqualTo(STREAMED);
        // the copied orders and the customers carry no tenant: read, routed nowhere
        assertThat(delivered.value("tideline_gateway_skipped_records_total", Map.of("reason", "no-tenant"))).isGreaterThanOrEqualTo(ORDERS);
        assertThat(delivered.value("tideline_gateway_topic_position", Map.of("topic", orders))).isGreaterThanOrEqualTo(ORDERS + STREAMED);
        assertThat(delivered.value("tideline_gateway_topic_lag_records", Map.of("topic", orders))).isBetween(0.0, (double) ORDERS);
        assertThat(delivered.value("tideline_gateway_disconnects_total", Map.of("reason", "slow-consumer"))).isZero();
        assertThat(last.value("tideline_gateway_deliveries_total", Map.of())).as("every change delivered once to each client of its tenant")
                .isEqualTo(GatewayClients.DELIVERIES);
    }

    /**
     * Subscribers of the gateway: two live ones of tenant acme and one of globex on the orders channel, one of acme from
     * the earliest record (a read-back from Kafka: a gap repair) and one refused for its malformed token.
     */
    private static final class GatewayClients implements AutoCloseable {
        static final int ACME = 3;
        static final int GLOBEX = 1;
        /**
         * The streamed inserts alternate acme and globex: each reaches every client of its tenant once (the one from the
         * earliest record through the read-back, then live); the copied orders carry no tenant and reach none.
         */
        static final int DELIVERIES = STREAMED / 2 * ACME + STREAMED / 2 * GLOBEX;
        private final List<SseClient> open;

        private GatewayClients(List<SseClient> open) {
            this.open = open;
        }

        static GatewayClients open(String baseUrl) {
            JwtVerifier signer = new JwtVerifier(FanoutFixture.SECRET.getBytes(StandardCharsets.UTF_8), 0);
            long exp = System.currentTimeMillis() / 1000 + 600;
            List<SseClient> open = new ArrayList<>();
            for (String tenant : List.of("acme", "acme", "globex")) {
                String channel = DB + ".orders." + tenant;
                SseClient c = SseClient.open(baseUrl, FanoutFixture.ssePath(signer.issue(null, tenant, List.of(channel), exp), channel), Map.of());
                c.await("subscribed", 1, WAIT);
                open.add(c);
            }
            String acme = DB + ".orders.acme";
            SseClient fromStart = SseClient.open(baseUrl, FanoutFixture.ssePath(signer.issue(null, "acme", List.of(acme), exp), acme)
                    + "&from=earliest", Map.of());
            fromStart.await("subscribed", 1, WAIT);
            open.add(fromStart);
            SseClient refused = SseClient.open(baseUrl, FanoutFixture.ssePath("not-a-token", acme), Map.of());
            assertThat(refused.status()).as("a malformed token refused").isEqualTo(401);
            refused.close();
            return new GatewayClients(open);
        }

        @Override
        public void close() {
            open.forEach(SseClient::close);
        }
    }

    /** The dashboard's panels from the recorded scrapes: HTML, and a PNG where Chromium is installed (docs/img). */
    private static void drawPanels(List<Scrape> scrapes) throws Exception {
        Map<String, List<PanelPage.Series>> panels = PanelPage.evaluate(scrapes, 15_000);
        panels.forEach((title, series) -> System.out.println("panel " + title + ": " + series.size() + " series"));
        // every panel has a line but the one of unhealthy tasks (every task of this run is ok; others may run beside it)
        assertThat(panels.entrySet().stream().filter(e -> e.getValue().isEmpty()).map(Map.Entry::getKey))
                .as("panels without a series").isSubsetOf("Task health not ok");
        Path html = OUT.resolve("dashboard-panels.html");
        Files.writeString(html, PanelPage.html(panels, "Tideline dashboard panels, drawn from " + scrapes.size()
                + " scrapes of a live worker's /metrics (PrometheusMetricsIT, " + Instant.now().toString().substring(0, 10) + ")"));
        Path chromium = Path.of("/usr/bin/chromium");
        if (!Files.isExecutable(chromium)) {
            System.out.println("no " + chromium + ": " + html + " written, no PNG");
            return;
        }
        Path png = OUT.resolve("dashboard-panels.png").toAbsolutePath();
        Path profile = Files.createTempDirectory(OUT.toAbsolutePath(), "chromium-");
        Process p = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--hide-scrollbars", "--user-data-dir=" + profile, "--screenshot=" + png, "--window-size=1200,"
                + (60 + 290 * ((panels.size() + 1) / 2)), html.toAbsolutePath().toUri().toString())
                .redirectErrorStream(true).redirectOutput(OUT.resolve("chromium.out").toFile()).start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("chromium's screenshot within 2 minutes").isTrue();
        assertThat(png).exists();
        System.out.println("panels drawn: " + png + " (" + Files.size(png) + " bytes)");
    }

    private static double orElse(double v) {
        return Double.isNaN(v) ? 0 : v;
    }

    private static Map<String, String> with(Map<String, String> labels, String key, String value) {
        Map<String, String> m = new HashMap<>(labels);
        m.put(key, value);
        return m;
    }

    /**
     * Scrapes each /metrics every second on its own thread and keeps every scrape, the targets' samples together (as
     * one Prometheus holds them; the metric names tell the worker's from the gateway's).
     */
    private static final class Recorder implements AutoCloseable {
        private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        private final List<String> urls;
        private final String url;
        private final List<Scrape> scrapes = new CopyOnWriteArrayList<>();
        private final Thread thread;
        private volatile String lastText = "";
        private volatile boolean stopped;
        private volatile Exception failure;

        Recorder(List<String> urls) {
            this.urls = List.copyOf(urls);
            this.url = String.join(" and ", urls);
            this.thread = new Thread(this::run, "metrics-recorder");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            while (!stopped) {
                long at = System.currentTimeMillis();
                try {
                    StringBuilder text = new StringBuilder();
                    for (String target : urls) {
                        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(target)).timeout(Duration.ofSeconds(10)).GET().build(),
                                HttpResponse.BodyHandlers.ofString());
                        if (r.statusCode() != 200) {
                            throw new IOException("GET " + target + ": " + r.statusCode() + " " + r.body());
                        }
                        text.append(r.body()).append('\n');
                    }
                    lastText = text.toString();
                    scrapes.add(Scrape.parse(at, lastText));
                    Thread.sleep(Math.max(0, 1000 - (System.currentTimeMillis() - at)));
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    failure = e;
                    return;
                }
            }
        }

        /** Waits for a scrape that satisfies {@code condition} and returns it. */
        Scrape await(String what, Duration timeout, java.util.function.Predicate<Scrape> condition) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            int seen = 0;
            while (System.nanoTime() < deadline) {
                if (failure != null) {
                    throw new AssertionError("scraping " + url + " failed", failure);
                }
                List<Scrape> now = scrapes;
                for (int i = seen; i < now.size(); i++) {
                    if (condition.test(now.get(i))) {
                        return now.get(i);
                    }
                }
                seen = now.size();
                Thread.sleep(200);
            }
            throw new AssertionError("no scrape of " + url + " showed " + what + " within " + timeout + "; the last:\n" + lastText);
        }

        List<Scrape> scrapes() {
            return List.copyOf(scrapes);
        }

        String lastText() {
            return lastText;
        }

        /** Stops scraping; the scrapes so far stay. */
        void stop() {
            stopped = true;
            thread.interrupt();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            stop();
        }
    }
}
