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
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * The capture latency of one busy collection while all the others of the task are idle: the time from
 * a write at the source to its record readable in Kafka, at a steady rate, with 2,000 collections in
 * one database and one task (target: p99 within 1 s). A benchmark, not a test: it prints its figures
 * and asserts only that every change arrived. Run with {@code mvn -B verify -Pscale} (through the IT lock).
 */
class SourceScaleLatencyBenchmark {
    private static final int COLLECTIONS = Integer.getInteger("tideline.scale.collections", 2_000);
    private static final int RATE = Integer.getInteger("tideline.scale.rate", 200);
    private static final int SECONDS = Integer.getInteger("tideline.scale.seconds", 30);

    @Test
    void p99CaptureLatencyOfOneBusyCollectionAmongIdleOnes() {
        System.out.println(measure(COLLECTIONS, RATE, SECONDS, "latency"));
    }

    /**
     * Measures on the shared stack with {@code collections} in one database ({@code <name>_it}, captured by connector
     * {@code source-<name>} into {@code <name>.*} topics); returns the SCALE line with the figures.
     */
    static String measure(int collections, int rate, int seconds, String name) {
        TestStack stack = TestStack.shared();
        String db = name + "_it";
        String connector = "source-" + name;
        try (MongoFixture mongo = MongoFixture.withOplog(); JmxReader jmx = new JmxReader(stack.jmxUrl(0));
             KafkaConsumer<byte[], byte[]> consumer = ScaleStack.consumer(stack.bootstrapServers(),
                     (name + "." + db + "." + SourceScaleIT.name(0)).replace(".", "\\."))) {
            MongoDatabase database = mongo.client().getDatabase(db);
            SourceScaleIT.createCollections(database, collections);
            stack.rest().putConnector(connector, SourceScaleIT.config(mongo.uri(), db, name));
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                String task = ScaleStack.task(connector);
                ScaleStack.awaitAttribute(jmx, task, "StreamedCollections", v -> ((Number) v).intValue() == collections,
                        Duration.ofMinutes(20));
                Waits.pause(Duration.ofSeconds(5), "the benchmark's warm-up before it measures");
                MongoCollection<Document> busy = database.getCollection(SourceScaleIT.name(0));
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
                        writtenAt.put(i, System.nanoTime());
                        busy.insertOne(new Document("_id", i));
                    }
                }, "latency-writer");
                writer.start();
                ScaleStack.readChanges(consumer, e -> {
                    if (e.op() == Op.INSERT && e.id().isInt32() && e.id().asInt32().getValue() >= 0) {
                        Long at = writtenAt.get(e.id().asInt32().getValue());
                        if (at != null) {
                            latencies.add(System.nanoTime() - at);
                        }
                    }
                }, () -> latencies.size() >= total, total + " inserts", Duration.ofMinutes(5));
                List<Long> sorted = new ArrayList<>(latencies);
                Collections.sort(sorted);
                double p50 = sorted.get(sorted.size() / 2) / 1e6;
                double p99 = sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1) / 1e6;
                double max = sorted.get(sorted.size() - 1) / 1e6;
                assertThat(sorted).hasSize(total);
                return String.format("SCALE capture latency of one busy collection (%d writes/s for %d s) while %d are idle, one task: "
                                + "p50 %.1f ms, p99 %.1f ms, max %.1f ms (target p99 <= 1000 ms); task threads %s, MongoDB connections %s, "
                                + "change streams %s; load average %s", rate, seconds, collections - 1, p50, p99, max,
                        jmx.attribute(task, "Threads"), jmx.attribute(task, "MongoConnections"), jmx.attribute(task, "ChangeStreams"),
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }
}
