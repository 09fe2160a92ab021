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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
 * records at a fixed rate (each change reaches N/C clients), the gateway in its own JVM from
 * target/fanout-gateway. Prints end-to-end latency (producer to client) p50/p99/max, deliveries per
 * second, the gateway's heap and CPU, and the load average. With {@code -Dfanout.bench.ramp=r1,r2,...}
 * it steps through rates and reports the highest one whose p99 stays within 250 ms with every change
 * delivered. Run: {@code mvn -B -Pfanout-bench -DskipTests verify} (options: the fanout-bench profile of src/test-stack/pom.xml).
 */
public final class FanoutLoadBenchmark {
    private static final String SECRET = "fanout-bench-secret-fanout-bench-secret-0123";
    private static final String ADMIN_SECRET = "fanout-bench-operator-key-fanout-bench-operator";
    private static final String TOPIC = "fbench.bench.items";
    private static final long P99_TARGET_MS = 250;

    /** One measured step. */
    record Step(int rate, long expected, long received, double seconds, long p50, long p99, long max, long gwP99,
                long heapAvgMiB, long heapMaxMiB, double cpuCores, String disconnects) {
        boolean passes() {
            return received >= expected && p99 <= P99_TARGET_MS;
        }

        double deliveriesPerSecond() {
            return received / seconds;
        }
    }

    public static void main(String[] args) throws Exception {
        int clients = Integer.getInteger("fanout.bench.clients", 10_000);
        int channels = Integer.getInteger("fanout.bench.channels", 100);
        int rate = Integer.getInteger("fanout.bench.rate", 1000);
        int seconds = Integer.getInteger("fanout.bench.seconds", 30);
        String ramp = System.getProperty("fanout.bench.ramp", "none");
        String heap = System.getProperty("fanout.bench.heap", "1g");
        // extra JVM options of the gateway, comma-separated (e.g. -XX:StartFlightRecording=filename=gw.jfr to profile it)
        List<String> gatewayOpts = new ArrayList<>(List.of("-Xmx" + heap, "-Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn"));
        for (String o : System.getProperty("fanout.bench.gateway.opts", "").split(",")) {
            if (!o.isBlank()) {
                gatewayOpts.add(o.trim());
            }
        }
        Path work = Path.of("target/fanout-bench").toAbsolutePath();
        System.out.printf("fanout bench: %d SSE clients on %d channels (%d per channel), %d changes/s for %d s; load average %s; "
                + "%d cores%n", clients, channels, clients / channels, rate, seconds, loadAverage(), Runtime.getRuntime().availableProcessors());

        TestStack stack = TestStack.start(work);
        stack.createTopic(TOPIC, 3);
        try (GatewayProcess gateway = GatewayProcess.start(work, Map.of("kafka.bootstrap.servers", stack.bootstrapServers(),
                "topics.regex", "fbench\\..*", "value.format", "bson", "http.port", "0", "auth.hmac.secret", SECRET,
                "auth.admin.hmac.secret", ADMIN_SECRET,
                "http.max.connections", Integer.toString(clients + 1000),
                "http.max.connections.per.address", Integer.toString(clients + 1000),
                "history.size", "100"), gatewayOpts)) {
            String baseUrl = gateway.baseUrl();
            URI uri = URI.create(baseUrl);
            JwtVerifier signer = new JwtVerifier(SECRET.getBytes(StandardCharsets.UTF_8), 0);
            long exp = System.currentTimeMillis() / 1000 + 6 * 3600;
            String admin = new JwtVerifier(ADMIN_SECRET.getBytes(StandardCharsets.UTF_8), 0).issueAdmin(exp);
            List<String> paths = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                String tenant = "t" + (i % channels);
                paths.add("/sse?channel=bench.items." + tenant + "&token=" + signer.issue(null, tenant, List.of("bench.*." + tenant), exp));
            }
            List<Integer> rates = "none".equals(ramp) ? List.of(rate) : Arrays.stream(ramp.split(",")).map(String::trim).map(Integer::parseInt).toList();
            int maxRate = rates.stream().mapToInt(Integer::intValue).max().orElse(rate);
            long connectStart = System.nanoTime();
            try (SseLoadClients load = new SseLoadClients(uri.getHost(), uri.getPort(), paths,
                    (int) Math.min(Integer.MAX_VALUE - 8, (long) maxRate * (seconds + 5) * (clients / channels) + 100_000));
                 KafkaProducer<byte[], byte[]> producer = producer(stack.bootstrapServers())) {
                while (load.connected.get() < clients && System.nanoTime() - connectStart < TimeUnit.SECONDS.toNanos(180)) {
                    Thread.sleep(100);
                }
                System.out.printf("fanout bench: %d/%d clients subscribed in %d ms%n", load.connected.get(), clients,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connectStart));
                produce(producer, channels, Math.max(1, rates.get(0) / 2), 5); // warm-up
                Thread.sleep(2000);
                List<Step> steps = new ArrayList<>();
                for (int r : rates) {
                    Step step = measure(load, producer, baseUrl, admin, clients, channels, r, seconds);
                    steps.add(step);
                    print(step, clients, channels, seconds, load);
                    if (rates.size() > 1 && !step.passes()) {
                        break;
                    }
                }
                if (rates.size() > 1) {
                    Step best = steps.stream().filter(Step::passes).reduce((a, b) -> b).orElse(null);
                    System.out.printf("fanout bench RESULT: highest rate sustained (p99 <= %d ms, every change delivered): %s%n",
                            P99_TARGET_MS, best == null ? "none of the rates tried"
                                    : best.rate() + " changes/s = " + Math.round(best.deliveriesPerSecond()) + " deliveries/s to "
                                    + clients + " clients");
                }
                System.out.printf("fanout bench: load average at the end %s%n", loadAverage());
            }
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        } finally {
            System.exit(0); // the stack's shutdown hook stops the broker and worker
        }
    }

    private static Step measure(SseLoadClients load, KafkaProducer<byte[], byte[]> producer, String baseUrl, String admin,
                                int clients, int channels, int rate, int seconds) throws Exception {
        load.reset();
        BsonDocument statsBefore = stats(baseUrl, admin);
        load.record(true);
        long start = System.nanoTime();
        List<Long> heap = java.util.Collections.synchronizedList(new ArrayList<>());
        heap.add(number(statsBefore, "heapUsedBytes"));
        Thread sampler = new Thread(() -> {
            long lastReceived = 0;
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(5000);
                    BsonDocument now = stats(baseUrl, admin);
                    heap.add(number(now, "heapUsedBytes"));
                    long received = load.received();
                    System.out.printf("fanout bench:   +5 s: %d deliveries/s received, gateway heap %d MiB, connections %d, "
                            + "clients closed by the gateway %d%n", (received - lastReceived) / 5, number(now, "heapUsedBytes") >> 20,
                            number(now, "connections"), load.closedByServer.get());
                    lastReceived = received;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
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
        BsonDocument statsAfter = stats(baseUrl, admin);
        heap.add(number(statsAfter, "heapUsedBytes"));
        long[] lat = load.endToEnd().sorted();
        long[] gw = load.fromGateway().sorted();
        long cpuBefore = number(statsBefore, "processCpuNanos");
        long cpuAfter = number(statsAfter, "processCpuNanos");
        double cpuCores = cpuBefore < 0 || cpuAfter < 0 ? -1 : (cpuAfter - cpuBefore) / (double) wallNanos;
        List<Long> samples = new ArrayList<>(heap);
        samples.removeIf(v -> v < 0);
        return new Step(rate, expected, load.received(), wallNanos / 1e9, pct(lat, 50), pct(lat, 99),
                lat.length == 0 ? -1 : lat[lat.length - 1], pct(gw, 99),
                (long) samples.stream().mapToLong(Long::longValue).average().orElse(-1) >> 20,
                samples.stream().mapToLong(Long::longValue).max().orElse(-1) >> 20, cpuCores,
                statsAfter.containsKey("disconnects") ? statsAfter.getDocument("disconnects").toJson() : "unknown");
    }

    private static void print(Step s, int clients, int channels, int seconds, SseLoadClients load) {
        System.out.printf("fanout bench RESULT: %d clients (subscribed %d, closed by the gateway %d), %d channels, %d changes/s for %d s "
                        + "= %d deliveries/s asked%n", clients, load.connected.get(), load.closedByServer.get(), channels, s.rate(), seconds,
                (long) s.rate() * (clients / channels));
        System.out.printf("fanout bench RESULT: delivered %d of %d (%.2f%%), %.0f deliveries/s; latency producer->client p50 %d ms, "
                        + "p99 %d ms, max %d ms (gateway->client p99 %d ms): %s%n", s.received(), s.expected(),
                100.0 * s.received() / Math.max(1, s.expected()), s.deliveriesPerSecond(), s.p50(), s.p99(), s.max(), s.gwP99(),
                s.passes() ? "PASS (p99 <= 250 ms, all delivered)" : "FAIL");
        System.out.printf("fanout bench RESULT: gateway heap used avg %d MiB, max %d MiB; gateway CPU %.2f cores; disconnects %s; "
                + "load average %s%n", s.heapAvgMiB(), s.heapMaxMiB(), s.cpuCores(), s.disconnects(), loadAverage());
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
            ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(TOPIC, EnvelopeCodec.toBytes(new BsonDocument("_id", new BsonInt64(i))),
                    EnvelopeCodec.toBytes(EnvelopeCodec.toBson(e)));
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

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "unknown";
        }
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** The gateway's /stats, or an empty document when it does not answer within 10 s (printed). */
    private static BsonDocument stats(String baseUrl, String adminToken) {
        try {
            return BsonDocument.parse(HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + "/stats"))
                    .header("Authorization", "Bearer " + adminToken)
                    .timeout(java.time.Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body());
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt(); // the sampler is being stopped: it must see it, or join() waits forever
            }
            System.out.println("fanout bench: /stats did not answer: " + e);
            return new BsonDocument();
        }
    }

    private static long number(BsonDocument d, String key) {
        return d.containsKey(key) ? d.get(key).asNumber().longValue() : -1;
    }
}
