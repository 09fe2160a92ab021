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
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntUnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.record.TimestampType;
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
    /** Ids of the warm-up rounds. */
    private static final int WARM_IDS = 20_000_000;
    /** Characters of padding in the first warm-up round's documents: each record over the broker's 4 KB index interval. */
    private static final int WARM_PADDING = 5_000;

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
            createTopics(stack.bootstrapServers(), name + "." + db + ".", collections);
            stack.rest().putConnector(connector, SourceScaleIT.config(mongo.uri(), db, name));
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                String task = ScaleStack.task(connector);
                ScaleStack.awaitAttribute(jmx, task, "StreamedCollections", v -> ((Number) v).intValue() == collections,
                        Duration.ofMinutes(20));
                List<String> lines = new ArrayList<>();
                // Warm-up, two rounds over every collection. A new topic's first index entry costs the broker the first write
                // to a page of its preallocated (sparse) index files: about 11 ms on this project's 2-core test machines
                // (2,000 files: 21.5 s on its disk, 0.3 s on tmpfs), twice per partition, 40 s for 2,000 topics; a broker that
                // has run for a while has paid it. The first round's records are larger than the broker's index interval
                // (4 KB), so the second round's make those entries. It also lets the consumer join and reach every partition.
                Timing cold = run(database, consumer, spreadRate, collections, WARM_IDS, i -> i, WARM_PADDING);
                lines.add(String.format("SCALE warm-up, the first change of each of %d new topics (%d writes/s, %d-byte documents, "
                        + "not a capture figure: the broker's first index writes): %s", collections, spreadRate, WARM_PADDING, cold));
                run(database, consumer, spreadRate, collections, WARM_IDS + collections, i -> i, 0);
                Waits.pause(Duration.ofSeconds(5), "the benchmark's warm-up before it measures");
                Timing busy = run(database, consumer, rate, rate * seconds, 0, i -> 0, 0);
                lines.add(String.format("SCALE capture latency of one busy collection (%d writes/s for %d s) while %d are idle, one task: "
                        + "%s (target p99 <= 1000 ms); %s", rate, seconds, collections - 1, busy, taskFigures(jmx, task)));
                Timing spread = run(database, consumer, spreadRate, spreadRate * seconds, SPREAD_IDS, i -> i % collections, 0);
                lines.add(String.format("SCALE capture latency of writes spread over all %d collections (%d writes/s for %d s), one task: "
                        + "%s (target p99 <= 1000 ms); %s", collections, spreadRate, seconds, spread, taskFigures(jmx, task)));
                return lines;
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }

    /**
     * The change topics, made before the connector does, with the broker's log append time as the records' timestamp: the
     * benchmark can then tell the time to the broker (the connector's part) from the time its own consumer took to read.
     */
    private static void createTopics(String bootstrap, String prefix, int collections) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            List<NewTopic> topics = new ArrayList<>();
            for (int i = 0; i < collections; i++) {
                topics.add(new NewTopic(prefix + SourceScaleIT.name(i), Optional.of(1), Optional.empty())
                        .configs(Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, TimestampType.LOG_APPEND_TIME.name)));
            }
            admin.createTopics(topics).all().get(5, TimeUnit.MINUTES);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create the " + collections + " change topics", e);
        }
    }

    /**
     * Inserts {@code total} documents at {@code rate} (ids from {@code firstId}, {@code padding} characters in a field, the
     * i-th into collection {@code target(i)}) and times each twice: from just before its insert to its record's log append time at the broker (wall clocks of one host), and to
     * the benchmark's consumer reading it.
     */
    private static Timing run(MongoDatabase database, KafkaConsumer<byte[], byte[]> consumer, int rate, int total, int firstId,
                              IntUnaryOperator target, int padding) {
        String pad = "x".repeat(padding);
        AtomicLongArray writtenNanos = new AtomicLongArray(total);
        AtomicLongArray writtenMillis = new AtomicLongArray(total);
        List<Long> read = new ArrayList<>();
        List<Long> appended = new ArrayList<>();
        Thread writer = new Thread(() -> {
            long start = System.nanoTime();
            for (int i = 0; i < total; i++) {
                long due = start + i * 1_000_000_000L / rate;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Waits.pause(Duration.ofNanos(wait), "the writer's rate");
                }
                writtenMillis.set(i, System.currentTimeMillis());
                writtenNanos.set(i, System.nanoTime());
                database.getCollection(SourceScaleIT.name(target.applyAsInt(i))).insertOne(padding == 0 ? new Document("_id", firstId + i)
                        : new Document("_id", firstId + i).append("pad", pad));
            }
        }, "latency-writer");
        long started = System.nanoTime();
        writer.start();
        ScaleStack.readChanges(consumer, (e, r) -> {
            if (e.op() == Op.INSERT && e.id().isInt32() && e.id().asInt32().getValue() >= firstId) {
                int i = e.id().asInt32().getValue() - firstId;
                long at = i < total ? writtenNanos.get(i) : 0;
                if (at != 0) {
                    read.add(System.nanoTime() - at);
                    if (r.timestampType() == TimestampType.LOG_APPEND_TIME) {
                        appended.add((r.timestamp() - writtenMillis.get(i)) * 1_000_000L);
                    }
                }
            }
        }, () -> read.size() >= total, total + " inserts", Duration.ofMinutes(5));
        long writeNanos;
        try {
            writer.join();
            writeNanos = System.nanoTime() - started;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        assertThat(read).hasSize(total);
        return new Timing(Latencies.of(read), appended.size() == total ? Latencies.of(appended) : null, total * 1e9 / writeNanos);
    }

    private static String taskFigures(JmxReader jmx, String task) {
        return String.format("task threads %s, MongoDB connections %s, change streams %s; load average %.2f",
                jmx.attribute(task, "Threads"), jmx.attribute(task, "MongoConnections"), jmx.attribute(task, "ChangeStreams"),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    /** Milliseconds. */
    private record Latencies(double p50, double p99, double max) {
        static Latencies of(List<Long> nanos) {
            List<Long> sorted = new ArrayList<>(nanos);
            Collections.sort(sorted);
            return new Latencies(sorted.get(sorted.size() / 2) / 1e6, sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1) / 1e6,
                    sorted.get(sorted.size() - 1) / 1e6);
        }

        @Override
        public String toString() {
            return String.format("p50 %.1f ms, p99 %.1f ms, max %.1f ms", p50, p99, max);
        }
    }

    /**
     * @param read     from the write to the benchmark's consumer reading the record
     * @param appended from the write to the record's log append time at the broker (null where the topic had another timestamp type)
     * @param rate     the writes per second the writer achieved
     */
    private record Timing(Latencies read, Latencies appended, double rate) {
        @Override
        public String toString() {
            return String.format("%s (to the broker: %s; writer's rate %.0f/s)", read, appended == null ? "unknown" : appended, rate);
        }
    }
}
