package dev.tideline.fanout.bench;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.it.fanout.GatewayProcess;
import dev.tideline.it.support.TestStack;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;

/**
 * Load benchmark (not a test): N concurrent SSE clients on C channels, a producer writing change
 * records at a fixed rate, the gateway in its own JVM from target/fanout-gateway. Prints delivery
 * latency p50/p99, the gateway's heap and CPU, and messages delivered per second.
 * Run: {@code mvn -B -Pfanout-bench -DskipTests verify} (-Dfanout.bench.clients=5000 ...).
 */
public final class FanoutLoadBenchmark {
    private static final String SECRET = "fanout-bench-secret-fanout-bench-secret-0123";
    private static final String TOPIC = "fbench.bench.items";

    public static void main(String[] args) throws Exception {
        int clients = Integer.getInteger("fanout.bench.clients", 5000);
        int channels = Integer.getInteger("fanout.bench.channels", 50);
        int rate = Integer.getInteger("fanout.bench.rate", 200);
        int seconds = Integer.getInteger("fanout.bench.seconds", 30);
        Path work = Path.of("target/fanout-bench").toAbsolutePath();
        System.out.printf("fanout bench: %d SSE clients on %d channels, %d changes/s for %d s%n", clients, channels, rate, seconds);

        TestStack stack = TestStack.start(work);
        stack.createTopic(TOPIC, 1);
        try (GatewayProcess gateway = GatewayProcess.start(work, Map.of("kafka.bootstrap.servers", stack.bootstrapServers(),
                "topics.regex", "fbench\\..*", "value.format", "bson", "http.port", "0", "auth.hmac.secret", SECRET,
                "history.size", "100"), List.of("-Xmx1g", "-Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn"))) {
            String baseUrl = gateway.baseUrl();
            URI uri = URI.create(baseUrl);
            JwtVerifier signer = new JwtVerifier(SECRET.getBytes(StandardCharsets.UTF_8), 0);
            long exp = System.currentTimeMillis() / 1000 + 3600;
            List<String> paths = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                String tenant = "t" + (i % channels);
                paths.add("/sse?channel=bench.items." + tenant + "&token=" + signer.issue(null, tenant, List.of("bench.*." + tenant), exp));
            }
            long connectStart = System.nanoTime();
            try (SseLoadClients load = new SseLoadClients(uri.getHost(), uri.getPort(), paths,
                    (int) Math.min(Integer.MAX_VALUE - 8, (long) rate * (seconds + 5) * (clients / channels) + 100_000));
                 KafkaProducer<byte[], byte[]> producer = producer(stack.bootstrapServers())) {
                while (load.connected.get() < clients && System.nanoTime() - connectStart < TimeUnit.SECONDS.toNanos(120)) {
                    Thread.sleep(100);
                }
                System.out.printf("fanout bench: %d/%d clients subscribed in %d ms%n", load.connected.get(), clients,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connectStart));
                produce(producer, channels, rate, 3); // warm-up
                Thread.sleep(1000);
                BsonDocument statsBefore = stats(baseUrl);
                load.record(true);
                long start = System.nanoTime();
                List<Long> heap = java.util.Collections.synchronizedList(new ArrayList<>());
                heap.add(statsBefore.get("heapUsedBytes").asNumber().longValue());
                Thread sampler = new Thread(() -> {
                    try {
                        while (!Thread.currentThread().isInterrupted()) {
                            heap.add(stats(baseUrl).get("heapUsedBytes").asNumber().longValue());
                            Thread.sleep(1000);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (Exception e) {
                        System.out.println("fanout bench: stats sampling stopped: " + e);
                    }
                });
                sampler.start();
                long sent = produce(producer, channels, rate, seconds);
                long expected = sent * (clients / channels);
                long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (load.received() < expected && System.nanoTime() < drainDeadline) {
                    Thread.sleep(100);
                }
                long wallNanos = System.nanoTime() - start;
                load.record(false);
                sampler.interrupt();
                sampler.join();
                BsonDocument statsAfter = stats(baseUrl);
                heap.add(statsAfter.get("heapUsedBytes").asNumber().longValue());
                long[] lat = load.endToEnd().sorted();
                long[] gw = load.fromGateway().sorted();
                double cpuCores = (statsAfter.get("processCpuNanos").asNumber().longValue()
                        - statsBefore.get("processCpuNanos").asNumber().longValue()) / (double) wallNanos;
                List<Long> heapSamples = new ArrayList<>(heap);
                long heapMax = heapSamples.stream().mapToLong(Long::longValue).max().orElse(-1);
                long heapAvg = (long) heapSamples.stream().mapToLong(Long::longValue).average().orElse(-1);
                System.out.printf("fanout bench RESULT: clients %d (subscribed %d, closed by gateway %d), channels %d, rate %d changes/s, %d s%n",
                        clients, load.connected.get(), load.closedByServer.get(), channels, rate, seconds);
                System.out.printf("fanout bench RESULT: delivered %d of %d expected (%.1f%%), %.0f messages/s delivered%n",
                        load.received(), expected, 100.0 * load.received() / Math.max(1, expected),
                        load.received() / (wallNanos / 1e9));
                System.out.printf("fanout bench RESULT: latency producer->client p50 %d ms, p99 %d ms, max %d ms%n",
                        pct(lat, 50), pct(lat, 99), lat.length == 0 ? -1 : lat[lat.length - 1]);
                System.out.printf("fanout bench RESULT: latency gateway publish->client p50 %d ms, p99 %d ms, max %d ms%n",
                        pct(gw, 50), pct(gw, 99), gw.length == 0 ? -1 : gw[gw.length - 1]);
                System.out.printf("fanout bench RESULT: gateway heap used avg %d MiB, max %d MiB (%d samples); gateway CPU %.2f cores "
                        + "(%d available); gateway disconnects %s%n", heapAvg >> 20, heapMax >> 20, heapSamples.size(), cpuCores,
                        Runtime.getRuntime().availableProcessors(), statsAfter.get("disconnects").toString());
            }
        } finally {
            System.exit(0); // the stack's shutdown hook stops the broker and worker
        }
    }

    private static long produce(KafkaProducer<byte[], byte[]> producer, int channels, int rate, int seconds) throws InterruptedException {
        long total = (long) rate * seconds;
        long start = System.nanoTime();
        for (long i = 0; i < total; i++) {
            long due = start + i * 1_000_000_000L / rate;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            String tenant = "t" + (i % channels);
            BsonDocument doc = new BsonDocument("_id", new BsonInt64(i)).append("sentAt", new BsonInt64(System.currentTimeMillis()))
                    .append("tenant", new BsonString(tenant)).append("label", new BsonString("item " + i));
            ChangeEvent e = new ChangeEvent(Op.INSERT, new Namespace("bench", "items"), new BsonInt64(i), doc, null,
                    System.currentTimeMillis(), null);
            ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(TOPIC, EnvelopeCodec.toBytes(EnvelopeCodec.toBson(e)));
            r.headers().add(EventHeaders.KIND, EventHeaders.KIND_CHANGE.getBytes(StandardCharsets.UTF_8));
            r.headers().add(EventHeaders.TENANT, tenant.getBytes(StandardCharsets.UTF_8));
            r.headers().add(EventHeaders.NAMESPACE, "bench.items".getBytes(StandardCharsets.UTF_8));
            producer.send(r);
        }
        producer.flush();
        return total;
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 0),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static long pct(long[] sorted, double p) {
        if (sorted.length == 0) {
            return -1;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100 * sorted.length) - 1)];
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static BsonDocument stats(String baseUrl) throws Exception {
        return BsonDocument.parse(HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + "/stats"))
                .timeout(java.time.Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()).body());
    }
}
