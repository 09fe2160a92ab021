package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * {@code initial.sync=skip} and a worker that crash-loops in the first seconds: kill -9 of the worker
 * three times, each before the task's first offset commit (the first one before the connector has
 * committed any offset at all, so its restart finds none), while inserts, updates and deletes are
 * written. Skip copies nothing, so a restart that found no offset used to start from a new "now" and
 * lose what was written in between; the start is now kept in the source ({@code _tideline_starts}) and
 * every restart streams from that same instant. The destination holds what the source held when the
 * connector was created (skip's premise: it is already there); it must end equal to the source,
 * document for document. Runs with -Pfaults.
 */
class SkipStartKillFaultIT {
    private static final int KILLS = 3;
    private static final int ATTEMPTS = 10;

    @Test
    void killsBeforeTheFirstOffsetCommitWithSkipLoseNothing() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("skipkill");
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2);
             KafkaConsumer<byte[], byte[]> watch = FirstCommitKillFaultIT.consumer(stack.bootstrapServers())) {
            long started = System.nanoTime();
            writer.preload(2_000);
            List<Document> existing = p.sourceCollection(source.client()).find().into(new ArrayList<>());
            p.destCollection(dest.client()).insertMany(existing); // what skip takes as already at the destination
            p.startSink(stack.rest(), dest.uri(), Map.of());
            watch.subscribe(List.of(p.topic));
            long committedBefore = FirstCommitKillFaultIT.committedOffsets(stack.bootstrapServers(), p.sourceConnector());
            stack.rest().putConnector(p.sourceConnector(), p.sourceConfig(source.uri(), Map.of("initial.sync", "skip", "batch.size", "200")));
            BsonDocument start = awaitStart(source, p);
            System.out.println("FAULTS skip-start: the connector's start, kept in the source: " + start.toJson());
            assertThat(start.getArray("collections")).as("collections there at the start: streamed, not copied")
                    .contains(new BsonString(Pipeline.COLLECTION));
            writer.start(); // after the start: everything written from now on must arrive
            // the first kill: as soon as the task has taken its start, before the worker's first offset flush
            stack.killWorker();
            long committedFirst = FirstCommitKillFaultIT.committedOffsets(stack.bootstrapServers(), p.sourceConnector());
            System.out.printf("FAULTS skip-start: kill 1 right after the start was kept, after %d writes: offsets committed "
                    + "by the connector: %d%n", writer.writes(), committedFirst - committedBefore);
            assertThat(committedFirst).as("offsets committed before the first kill (the restart must find none)")
                    .isEqualTo(committedBefore);
            long committed = committedFirst;
            Set<String> producers = new HashSet<>();
            int beforeFirstCommit = 1;
            int attempts = 1;
            while (true) {
                Pipeline.awaitWrites(writer::writes, writer.writes(), Pipeline.WRITES_WHILE_DOWN,
                        "the application writes on while the worker is down");
                stack.startWorker();
                stack.rest().awaitRunning(p.sourceConnector(), 1, Duration.ofSeconds(120));
                stack.rest().awaitRunning(p.sinkConnector(), 1, Duration.ofSeconds(120));
                if (beforeFirstCommit == KILLS || attempts == ATTEMPTS) {
                    break;
                }
                attempts++;
                String producer = FirstCommitKillFaultIT.awaitNewProducer(watch, producers);
                stack.killWorker(); // right after this run's first change record: before its first offset flush
                long committedAfter = FirstCommitKillFaultIT.committedOffsets(stack.bootstrapServers(), p.sourceConnector());
                boolean first = committedAfter == committed;
                if (first) {
                    beforeFirstCommit++;
                }
                System.out.printf("FAULTS skip-start: kill %d (run of producer %s) after %d writes: offsets committed by this run: %d%s%n",
                        attempts, producer.substring(0, 8), writer.writes(), committedAfter - committed,
                        first ? " (before its first commit)" : " (too late: does not count)");
                committed = committedAfter;
            }
            assertThat(beforeFirstCommit).as("kills before the first offset commit").isEqualTo(KILLS);
            Pipeline.awaitWrites(writer::writes, writer.writes(), Pipeline.STRETCH_OF_WRITES, "the last stretch after the kills");
            writer.stop();
            p.awaitDestination(dest.client(), writer.expected(), Pipeline.CONVERGE);
            Pipeline.Differences d = p.differences(dest.client(), writer.expected());
            Pipeline.Comparison byteForByte = p.compare(source.client(), dest.client());
            System.out.printf("FAULTS skip-start: %d writes (2,000 before the connector), %d x kill -9 before the first commit: "
                    + "missing or stale %d, not deleted %d; source vs destination: %s; %.1f s%n", writer.writes(), beforeFirstCommit,
                    d.missingOrStale(), d.notDeleted(), byteForByte, (System.nanoTime() - started) / 1e9);
            assertThat(d.missingOrStale() + d.notDeleted()).as("LOST or not deleted at the destination").isZero();
            assertThat(byteForByte.differing()).as("documents that differ").isEmpty();
            assertThat(p.resnapshotMarkers(stack.bootstrapServers())).as("skip copies nothing").isEmpty();
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    private static BsonDocument awaitStart(MongoFixture source, Pipeline p) {
        return Waits.until(Duration.ofMinutes(2), Duration.ofMillis(100),
                () -> source.client().getDatabase(p.db).getCollection("_tideline_starts", BsonDocument.class).find().first(),
                java.util.Objects::nonNull, d -> "the source kept no start in " + p.db + "._tideline_starts within 2 minutes");
    }
}
