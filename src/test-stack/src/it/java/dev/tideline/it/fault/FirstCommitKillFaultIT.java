package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.EventHeaders;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * A worker that crash-loops in the first seconds of a new source connector: kill -9 of the worker
 * three times, each before the task's first offset commit (checked on the worker's offsets topic),
 * while inserts, updates and deletes are written. Every restart finds no offset and copies the
 * collection again; each copy is bracketed by resnapshot markers, so the Tideline sink removes what a
 * copy did not find (deleted since an earlier copy). The destination must end equal to the source,
 * document for document: LOST 0, not deleted 0.
 */
class FirstCommitKillFaultIT {
    private static final int KILLS = 3;
    private static final int ATTEMPTS = 10;

    @Test
    void killsBeforeTheFirstOffsetCommitLeaveNothingStaleAtTheDestination() {
        crashLoop("firstcommit", 3_000, false);
    }

    /**
     * The same crash loop on a source that is empty when the connector starts (its collection does not exist yet):
     * the first run has nothing to copy and streams from its start; the application begins writing only once the
     * connector runs, and each kill comes right after that run's first record.
     */
    @Test
    void killsBeforeTheFirstOffsetCommitOfAnEmptySourceLoseNothing() {
        crashLoop("firstempty", 0, true);
    }

    private static void crashLoop(String name, int preload, boolean writeOnceRunning) {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline(name);
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2);
             KafkaConsumer<byte[], byte[]> watch = consumer(stack.bootstrapServers())) {
            long started = System.nanoTime();
            if (preload > 0) {
                writer.preload(preload);
            }
            p.startSink(stack.rest(), dest.uri(), Map.of());
            if (!writeOnceRunning) {
                writer.start();
            }
            watch.subscribe(List.of(p.topic));
            Set<String> producers = new HashSet<>();
            long committedBefore = committedOffsets(stack.bootstrapServers(), p.sourceConnector());
            // not waiting for RUNNING: the kill must come right after the task's first record
            stack.rest().putConnector(p.sourceConnector(), p.sourceConfig(source.uri(), Map.of("batch.size", "200")));
            if (writeOnceRunning) {
                stack.rest().awaitRunning(p.sourceConnector(), 1, Duration.ofSeconds(120));
                writer.start();
            }
            int beforeFirstCommit = 0;
            int attempts = 0;
            while (beforeFirstCommit < KILLS && attempts < ATTEMPTS) {
                attempts++;
                String producer = awaitNewProducer(watch, producers);
                stack.killWorker(); // right after this run's first record: before its first offset flush (1 s)
                long committedAfter = committedOffsets(stack.bootstrapServers(), p.sourceConnector());
                boolean first = committedAfter == committedBefore;
                if (first) {
                    beforeFirstCommit++;
                }
                System.out.printf("FAULTS %s: kill %d (run of producer %s) after %d writes: offsets committed by this run: %d%s%n",
                        name, attempts, producer.substring(0, 8), writer.writes(), committedAfter - committedBefore,
                        first ? " (before the first commit)" : " (too late: does not count)");
                committedBefore = committedAfter; // nothing commits while the worker is down
                stack.startWorker();
                stack.rest().awaitRunning(p.sourceConnector(), 1, Duration.ofSeconds(120));
                stack.rest().awaitRunning(p.sinkConnector(), 1, Duration.ofSeconds(120));
            }
            assertThat(beforeFirstCommit).as("kills before the first offset commit").isEqualTo(KILLS);
            Pipeline.Tally t = p.finish("kill -9 before 1st commit" + (preload == 0 ? ", empty source" : ""), attempts + " x kill -9, "
                    + beforeFirstCommit + " before the first offset commit (seed " + seed + ")", stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            Pipeline.Comparison byteForByte = p.compare(source.client(), dest.client());
            System.out.println("FAULTS " + name + ": source vs destination: " + byteForByte + "; markers " + markerCount(p, stack));
            assertThat(t.lostInTopic()).as("lost in the topic").isZero();
            assertThat(t.lostAtDestination() + t.notDeleted()).as("lost or not deleted at the destination").isZero();
            assertThat(byteForByte.differing()).as("documents that differ").isEmpty();
            assertThat(byteForByte.destinationCount()).isEqualTo(byteForByte.sourceCount());
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    private static long markerCount(Pipeline p, TestStack stack) {
        return p.resnapshotMarkers(stack.bootstrapServers()).stream().filter("resnapshot.begin"::equals).count();
    }

    static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "first-commit-" + UUID.randomUUID());
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "500");
        return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Polls the change topic until a record of a task run not seen before arrives; returns its producer id. */
    static String awaitNewProducer(KafkaConsumer<byte[], byte[]> watch, Set<String> seen) {
        String[] found = new String[1];
        long[] read = {0};
        // the consumer's poll waits up to 20 ms itself: poll again at once
        Waits.until(Duration.ofMinutes(3), Duration.ofMillis(1), () -> {
            for (ConsumerRecord<byte[], byte[]> r : watch.poll(Duration.ofMillis(20))) {
                read[0]++;
                Header producer = r.headers().lastHeader(EventHeaders.PRODUCER);
                if (producer != null) {
                    String id = new String(producer.value(), StandardCharsets.UTF_8);
                    if (seen.add(id)) {
                        found[0] = id;
                        return true;
                    }
                }
            }
            return false;
        }, Boolean::booleanValue, x -> "no record of a new task run within 3 minutes (" + read[0] + " records read, producers seen: "
                + seen + ")");
        return found[0];
    }

    /** Offset records the worker has written for the connector (every commit writes one per partition it moved). */
    static long committedOffsets(String bootstrap, String connector) {
        return OffsetsTopic.committed(bootstrap, connector).size();
    }
}
