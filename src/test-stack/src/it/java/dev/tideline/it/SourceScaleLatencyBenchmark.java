package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.tideline.event.Op;
import dev.tideline.it.ops.JmxReader;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntUnaryOperator;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * The capture latency of a task holding 2,000 collections in one database, from a write at the source to its record
 * readable in Kafka, at a steady rate, in two phases on one deployment of the connector: one busy collection while all
 * the others are idle, then writes spread round-robin over every collection (issue 26: p99 within 1 s at 1,000
 * writes/s over 2,000 collections). A benchmark, not a test: it prints its figures and asserts only that every change
 * arrived. Run with {@code mvn -B verify -Pscale} (through the IT lock).
 */
class SourceScaleLatencyBenchmark {
    private static final int COLLECTIONS = Integer.getInteger("tideline.scale.collections", 2_000);
    private static final int RATE = Integer.getInteger("tideline.scale.rate", 200);
    private static final int SPREAD_RATE = Integer.getInteger("tideline.scale.spread.rate", 1_000);
    private static final int SECONDS = Integer.getInteger("tideline.scale.seconds", 30);
    /** Ids of the spread phase start here, so each phase's ids are its own. */
    private static final int SPREAD_IDS = 10_000_000;

    @Test
    void p99CaptureLatencyOfOneBusyCollectionAmongIdleOnesAndOfWritesSpreadOverAll() {
        measure(COLLECTIONS, RATE, SPREAD_RATE, SECONDS, "latency").forEach(System.out::println);
    }

    /**
     * Measures on the shared stack with {@code collections} in one database ({@code <name>_it}, captured by connector
     * {@code source-<name>} into {@code <name>.*} topics); returns the two SCALE lines with the figures: one busy
     * collection at {@code rate}, then {@code spreadRate} writes/s spread over every collection.
     */
    static List<String> measure(int collections, int rate, int spreadRate, int seconds, String name) {
        TestStack stack = TestStack.shared();
        String db = name + "_it";
        String connector = "source-" + name;
        try (MongoFixture mongo = MongoFixture.withOplog(); JmxReader jmx = new JmxReader(stack.jmxUrl(0));
             KafkaConsumer<byte[], byte[]> consumer = ScaleStack.consumer(stack.bootstrapServers(),
                     (name + "." + db + ".").replace(".", "\\.") + "c[0-9]+")) {
            MongoDatabase database = mongo.client().getDatabase(db);
            SourceScaleIT.createCollections(database, collections);
            stack.rest().putConnector(connector, SourceScaleIT.config(mongo.uri(), db, name));
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                String task = ScaleStack.task(connector);
                ScaleStack.awaitAttribute(jmx, task, "StreamedCollections", v -> ((Number) v).intValue() == collections,
                        Duration.ofMinutes(20));
                Waits.pause(Duration.ofSeconds(5), "the benchmark's warm-up before it measures");
                List<String> lines = new ArrayList<>();
                Latencies busy = run(database, consumer, rate, seconds, 0, i -> 0);
                lines.add(String.format("SCALE capture latency of one busy collection (%d writes/s for %d s) while %d are idle, one task: "
                        + "%s (target p99 <= 1000 ms); %s", rate, seconds, collections - 1, busy, taskFigures(jmx, task)));
                Latencies spread = run(database, consumer, spreadRate, seconds, SPREAD_IDS, i -> i % collections);
                lines.add(String.format("SCALE capture latency of writes spread over all %d collections (%d writes/s for %d s), one task: "
                        + "%s (target p99 <= 1000 ms); %s", collections, spreadRate, seconds, spread, taskFigures(jmx, task)));
                return lines;
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }

    /** Inserts {@code rate x seconds} documents (ids from {@code firstId}, the i-th into collection {@code target(i)}) and times each. */
    private static Latencies run(MongoDatabase database, KafkaConsumer<byte[], byte[]> consumer, int rate, int seconds, int firstId,
                                 IntUnaryOperator target) {
        Map<Integer, Long> writtenAt = new ConcurrentHashMap<>();
        List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        int total = rate * seconds;
        Thread writer = new Thread(() -> {
            long start = System.nanoTime();
            for (int i = 0; i < total; i++) {
                long due = start + i * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Waits.pause(Duration.ofNanos(wait), "the writer's rate");
                }
                writtenAt.put(firstId + i, System.nanoTime());
                database.getCollection(SourceScaleIT.name(target.applyAsInt(i))).insertOne(new Document("_id", firstId + i));
            }
        }, "latency-writer");
        writer.start();
        ScaleStack.readChanges(consumer, e -> {
            if (e.op() == Op.INSERT && e.id().isInt32() && e.id().asInt32().getValue() >= firstId) {
                Long at = writtenAt.get(e.id().asInt32().getValue());
                if (at != null) {
                    latencies.add(System.nanoTime() - at);
                }
            }
        }, () -> latencies.size() >= total, total + " inserts", Duration.ofMinutes(5));
        List<Long> sorted = new ArrayList<>(latencies);
        Collections.sort(sorted);
        assertThat(sorted).hasSize(total);
        return new Latencies(sorted.get(sorted.size() / 2) / 1e6, sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1) / 1e6,
                sorted.get(sorted.size() - 1) / 1e6);
    }

    private static String taskFigures(JmxReader jmx, String task) {
        return String.format("task threads %s, MongoDB connections %s, change streams %s; load average %.2f",
                jmx.attribute(task, "Threads"), jmx.attribute(task, "MongoConnections"), jmx.attribute(task, "ChangeStreams"),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    /** Milliseconds. */
    private record Latencies(double p50, double p99, double max) {
        @Override
        public String toString() {
            return String.format("p50 %.1f ms, p99 %.1f ms, max %.1f ms", p50, p99, max);
        }
    }
}
