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
 * target/fanout-gateway and the clients in another ({@link ClientProcess}). Prints a table: end-to-end
 * latency (producer to client) p50/p99/max, deliveries per second, the gateway's CPU (process CPU time
 * over the step) and its CPU per delivery, the clients' CPU, the gateway's heap, and what one gateway
 * core and N gateways would serve at that cost. With {@code -Dfanout.bench.ramp=r1,r2,...} it steps
 * through rates and reports the highest one whose p99 stays within 250 ms with every change delivered.
 * Run: {@code mvn -B -Pfanout-bench -DskipTests verify} (options: the fanout-bench profile of
 * src/test-stack/pom.xml); {@code FanoutBenchmarkSmokeIT} runs its smallest form.
 */
public final class FanoutLoadBenchmark {
    private static final String SECRET = "fanout-bench-secret-fanout-bench-secret-0123";
    private static final String ADMIN_SECRET = "fanout-bench-operator-key-fanout-bench-operator";
    static final long P99_TARGET_MS = 250;

    /**
     * @param topicPrefix the change topic is {@code <topicPrefix>.bench.items}, the gateway reads {@code <topicPrefix>.*}
     * @param gatewayOpts extra JVM options of the gateway (e.g. -XX:StartFlightRecording=filename=gw.jfr to profile it)
     * @param gatewaySettings settings of the gateway besides the benchmark's own (e.g. delivery.flush.window.ms)
     */
    record Options(int clients, int channels, List<Integer> rates, int seconds, int warmupSeconds, String gatewayHeap,
                   List<String> gatewayOpts, Map<String, String> gatewaySettings, String clientHeap, String topicPrefix) {
        int clientsPerChannel() {
            return clients / channels;
        }

        String topic() {
            return topicPrefix + ".bench.items";
        }
    }

    /** One measured step. */
    record Step(int rate, long expected, long received, double seconds, long p50, long p99, long max, long gwP99,
                long heapAvgMiB, long heapMaxMiB, double cpuCores, double cpuMicrosPerDelivery, double systemShare,
                double clientCpuCores, String disconnects) {
        boolean passes() {
            return received >= expected && p99 <= P99_TARGET_MS;
        }

        double deliveriesPerSecond() {
            return received / seconds;
        }

        /** Every figure was measured (none is the -1 of a reading that failed). */
        boolean measured() {
            return received > 0 && p50 >= 0 && p99 >= 0 && max >= 0 && gwP99 >= 0 && heapMaxMiB >= 0 && cpuCores >= 0
                    && cpuMicrosPerDelivery > 0 && systemShare >= 0 && clientCpuCores >= 0;
        }
    }

    /** A run: the steps measured, or the error that stopped it. */
    record Result(Options options, long subscribed, long subscribeMillis, String loadBefore, List<Step> steps, String error) {
        boolean ok() {
            return error == null && subscribed == options.clients() && !steps.isEmpty() && steps.stream().allMatch(Step::measured);
        }

        String table() {
            return FanoutTable.text(this);
        }
    }

    public static void main(String[] args) {
        int rate = Integer.getInteger("fanout.bench.rate", 1000);
        String ramp = System.getProperty("fanout.bench.ramp", "none");
        List<String> gatewayOpts = new ArrayList<>();
        // separated by spaces: a JVM option may hold commas (-XX:StartFlightRecording=filename=gw.jfr,settings=profile)
        for (String o : System.getProperty("fanout.bench.gateway.opts", "").split("\\s+")) {
            if (!o.isBlank()) {
                gatewayOpts.add(o.trim());
            }
        }
        Map<String, String> gatewaySettings = new java.util.LinkedHashMap<>();
        for (String kv : System.getProperty("fanout.bench.gateway.settings", "").split(",")) {
            if (kv.contains("=")) {
                gatewaySettings.put(kv.substring(0, kv.indexOf('=')).trim(), kv.substring(kv.indexOf('=') + 1).trim());
            }
        }
        Options options = new Options(Integer.getInteger("fanout.bench.clients", 10_000), Integer.getInteger("fanout.bench.channels", 100),
                "none".equals(ramp) ? List.of(rate) : Arrays.stream(ramp.split(",")).map(String::trim).map(Integer::parseInt).toList(),
                Integer.getInteger("fanout.bench.seconds", 30), Integer.getInteger("fanout.bench.warmup", 10),
                System.getProperty("fanout.bench.heap", "1g"), gatewayOpts,
                gatewaySettings, System.getProperty("fanout.bench.client.heap", "2g"), "fbench");
        Path work = Path.of("target/fanout-bench").toAbsolutePath();
        int status = 1;
        try {
            TestStack stack = TestStack.start(work);
            Result result = measure(stack, work, options);
            System.out.println(result.table());
            status = result.ok() ? 0 : 1;
        } catch (Exception e) {
            e.printStackTrace();
        } finally {
            System.exit(status); // the stack's shutdown hook stops the broker
        }
    }

    /** Runs the benchmark on {@code stack}'s broker; the gateway and the clients are started and stopped here. */
    static Result measure(TestStack stack, Path work, Options o) throws Exception {
        String loadBefore = loadAverage();
        System.out.printf("fanout bench: %d SSE clients on %d channels (%d per channel), changes/s %s for %d s; load average %s; "
                + "%d cores%n", o.clients(), o.channels(), o.clientsPerChannel(), o.rates(), o.seconds(), loadBefore,
                Runtime.getRuntime().availableProcessors());
        stack.createTopic(o.topic(), 3);
        Map<String, String> settings = new java.util.LinkedHashMap<>(Map.of("kafka.bootstrap.servers", stack.bootstrapServers(),
                "topics.regex", java.util.regex.Pattern.quote(o.topicPrefix()) + "\\..*", "value.format", "bson", "http.port", "0",
                "auth.hmac.secret", SECRET, "auth.admin.hmac.secret", ADMIN_SECRET,
                "http.max.connections", Integer.toString(o.clients() + 1000),
                "http.max.connections.per.address", Integer.toString(o.clients() + 1000), "history.size", "100"));
        settings.putAll(o.gatewaySettings());
        List<String> jvm = new ArrayList<>(List.of("-Xmx" + o.gatewayHeap(), "-Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn"));
        jvm.addAll(o.gatewayOpts());
        try (GatewayProcess gateway = GatewayProcess.start(work.resolve("gateway-" + o.topicPrefix()), settings, jvm)) {
            String baseUrl = gateway.baseUrl();
            URI uri = URI.create(baseUrl);
            JwtVerifier signer = new JwtVerifier(SECRET.getBytes(StandardCharsets.UTF_8), 0);
            long exp = System.currentTimeMillis() / 1000 + 6 * 3600;
            String admin = new JwtVerifier(ADMIN_SECRET.getBytes(StandardCharsets.UTF_8), 0).issueAdmin(exp);
            List<String> paths = new ArrayList<>();
            for (int i = 0; i < o.clients(); i++) {
                String tenant = "t" + (i % o.channels());
                paths.add("/sse?channel=bench.items." + tenant + "&token=" + signer.issue(null, tenant, List.of("bench.*." + tenant), exp));
            }
            awaitHealthy(baseUrl);
            int maxRate = o.rates().stream().mapToInt(Integer::intValue).max().orElse(1);
            int maxSamples = (int) Math.min(Integer.MAX_VALUE - 8, (long) maxRate * (o.seconds() + 5) * o.clientsPerChannel() + 100_000);
            long connectStart = System.nanoTime();
            try (ClientProcess load = ClientProcess.start(work, uri.getHost(), uri.getPort(), paths, maxSamples, o.clientHeap());
                 KafkaProducer<byte[], byte[]> producer = producer(stack.bootstrapServers())) {
                while (load.status().subscribed() < o.clients() && System.nanoTime() - connectStart < TimeUnit.SECONDS.toNanos(180)) {
                    Thread.sleep(100);
                }
                long subscribed = load.status().subscribed();
                long subscribeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connectStart);
                System.out.printf("fanout bench: %d/%d clients subscribed in %d ms%n", subscribed, o.clients(), subscribeMillis);
                if (o.warmupSeconds() > 0) {
                    // at the first rate: the gateway's JIT compiles its delivery path meanwhile, not during the measurement
                    produce(producer, o, o.rates().get(0), o.warmupSeconds());
                    Thread.sleep(2000);
                }
                List<Step> steps = new ArrayList<>();
                for (int r : o.rates()) {
                    Step step = measure(load, producer, gateway.pid(), baseUrl, admin, o, r);
                    steps.add(step);
                    System.out.printf("fanout bench: %d changes/s: %d of %d delivered, p99 %d ms, gateway %.2f cores, %.1f us per delivery%n",
                            r, step.received(), step.expected(), step.p99(), step.cpuCores(), step.cpuMicrosPerDelivery());
                    if (o.rates().size() > 1 && !step.passes()) {
                        break;
                    }
                }
                return new Result(o, subscribed, subscribeMillis, loadBefore, steps, null);
            }
        }
    }

    private static Step measure(ClientProcess load, KafkaProducer<byte[], byte[]> producer, long gatewayPid, String baseUrl, String admin,
                                Options o, int rate) throws Exception {
        BsonDocument statsBefore = stats(baseUrl, admin);
        long gatewayCpuBefore = ProcessCpu.nanos(gatewayPid);
        long gatewaySystemBefore = ProcessCpu.systemNanos(gatewayPid);
        long clientCpuBefore = load.cpuNanos();
        load.record();
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
                    ClientProcess.Status status = load.status();
                    System.out.printf("fanout bench:   +5 s: %d deliveries/s received, gateway heap %d MiB, connections %d, "
                            + "clients closed by the gateway %d%n", (status.received() - lastReceived) / 5, number(now, "heapUsedBytes") >> 20,
                            number(now, "connections"), status.closedByServer());
                    lastReceived = status.received();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.io.IOException e) {
                System.out.println("fanout bench: the client process does not answer: " + e);
            }
        });
        sampler.start();
        long sent = produce(producer, o, rate, o.seconds());
        long expected = sent * o.clientsPerChannel();
        long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (load.status().received() < expected && System.nanoTime() < drainDeadline) {
            Thread.sleep(100);
        }
        long wallNanos = System.nanoTime() - start;
        load.stop();
        sampler.interrupt();
        sampler.join();
        long received = load.status().received();
        long clientCpuAfter = load.cpuNanos();
        long gatewayCpuAfter = ProcessCpu.nanos(gatewayPid);
        long gatewaySystemAfter = ProcessCpu.systemNanos(gatewayPid);
        // the kernel's share of the gateway's CPU (its sockets' system calls), from /proc at 10 ms resolution
        double systemShare = gatewayCpuBefore < 0 || gatewayCpuAfter <= gatewayCpuBefore || gatewaySystemBefore < 0 ? -1
                : (gatewaySystemAfter - gatewaySystemBefore) / (double) (gatewayCpuAfter - gatewayCpuBefore);
        BsonDocument statsAfter = stats(baseUrl, admin);
        heap.add(number(statsAfter, "heapUsedBytes"));
        ClientProcess.Latencies lat = load.latencies();
        long cpuBefore = number(statsBefore, "processCpuNanos");
        long cpuAfter = number(statsAfter, "processCpuNanos");
        double cpuCores = cpuBefore < 0 || cpuAfter < 0 ? -1 : (cpuAfter - cpuBefore) / (double) wallNanos;
        double cpuPerDelivery = cpuCores < 0 || received == 0 ? -1 : (cpuAfter - cpuBefore) / 1000.0 / received;
        double clientCores = clientCpuBefore < 0 || clientCpuAfter < 0 ? -1 : (clientCpuAfter - clientCpuBefore) / (double) wallNanos;
        List<Long> samples = new ArrayList<>(heap);
        samples.removeIf(v -> v < 0);
        return new Step(rate, expected, received, wallNanos / 1e9, lat.p50(), lat.p99(), lat.max(), lat.gatewayP99(),
                (long) samples.stream().mapToLong(Long::longValue).average().orElse(-1) >> 20,
                samples.stream().mapToLong(Long::longValue).max().orElse(-1) >> 20, cpuCores, cpuPerDelivery, systemShare, clientCores,
                statsAfter.containsKey("disconnects") ? statsAfter.getDocument("disconnects").toJson() : "unknown");
    }

    private static long produce(KafkaProducer<byte[], byte[]> producer, Options o, int rate, int seconds) throws InterruptedException {
        long total = (long) rate * seconds;
        long start = System.nanoTime();
        for (long i = 0; i < total; i++) {
            long due = start + i * 1_000_000_000L / rate;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            String tenant = "t" + (i % o.channels());
            BsonDocument doc = new BsonDocument("_id", new BsonInt64(i)).append("sentAt", new BsonInt64(System.currentTimeMillis()))
                    .append("tenant", new BsonString(tenant)).append("label", new BsonString("item " + i));
            ChangeEvent e = new ChangeEvent(Op.INSERT, new Namespace("bench", "items"), new BsonInt64(i), doc, null,
                    System.currentTimeMillis(), null);
            ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(o.topic(), EnvelopeCodec.toBytes(new BsonDocument("_id", new BsonInt64(i))),
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

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "unknown";
        }
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    /** Until the gateway has reached Kafka (/health 200): before, it answers subscriptions 503 starting, and the clients do not retry. */
    private static void awaitHealthy(String baseUrl) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (true) {
            int status;
            try {
                status = HTTP.send(HttpRequest.newBuilder(URI.create(baseUrl + "/health")).timeout(java.time.Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (java.io.IOException e) {
                status = -1;
            }
            if (status == 200) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the gateway at " + baseUrl + " did not answer /health with 200 within 120 s (last: " + status + ")");
            }
            Thread.sleep(200);
        }
    }

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
