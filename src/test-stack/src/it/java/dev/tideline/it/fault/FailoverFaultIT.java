package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.it.support.Waits;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.repair.RepairSignals;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replica-set failover, as every rolling upgrade does it: the primary steps down every few seconds (and now and then
 * restarts), at the source and at the destination, while the application writes, during a copy, a split copy and a
 * repair. The connectors ride it out through the driver's replica-set topology (server selection, retryable writes
 * and reads, change-stream resume): nothing lost, nothing stale, nothing copied again, no task failed; the duplicate
 * deliveries of at-least-once are counted on the FAULTS line. Needs the in-process replica set (a step-down on
 * demand); one round in {@code mvn verify}, more with {@code -Pfaults}.
 */
class FailoverFaultIT {
    @Test
    void stepDownsDuringAMixedWorkloadAndARepairLoseNothing() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("failover");
        Namespace ns = new Namespace(p.db, Pipeline.COLLECTION);
        try (MongoFixture source = replicaSet(); MongoFixture dest = replicaSet();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2)) {
            long started = System.nanoTime();
            writer.preload(1_000);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            p.startSource(stack.rest(), source.uri(), Map.of());
            TopicReader.readUntil(stack.bootstrapServers(), p.topic, 1_000, Duration.ofMinutes(2)); // the first copy is done
            writer.start();
            String faults;
            int repairs = 0;
            try (Failovers failovers = new Failovers(List.of(source, dest), seed, 0)) {
                for (int round = 0; round < FaultRounds.rounds(); round++) {
                    Pipeline.awaitWrites(writer::writes, writer.writes(), 4 * Pipeline.STRETCH_OF_WRITES, "writing through step-downs");
                    System.out.printf("FAULTS failover: round %d, %s, %d writes so far%n", round + 1, failovers.describe(), writer.writes());
                }
                // a repair of the whole collection while the primaries keep stepping down
                int before = failovers.stepDowns();
                BsonObjectId signal = new BsonObjectId(new ObjectId());
                source.client().getDatabase(p.db).getCollection(RepairSignals.COLLECTION, BsonDocument.class)
                        .insertOne(new BsonDocument("_id", signal).append("collection", new BsonString(Pipeline.COLLECTION)));
                Waits.until(Duration.ofMinutes(3), Duration.ofMillis(200),
                        () -> stack.rest().sourceOffsetMap(p.sourceConnector(), ns).map(SourceOffset::repair).orElse(RepairProgress.NONE),
                        r -> r.isDone(signal), r -> "the repair not done within 3 minutes of step-downs; last progress: " + r);
                repairs++;
                System.out.printf("FAULTS failover: a repair done through %d step-downs%n", failovers.stepDowns() - before);
                faults = failovers.describe();
                assertThat(failovers.stepDowns()).as("step-downs").isGreaterThanOrEqualTo(4);
            }
            Pipeline.Tally t = p.finish("primary step-downs", faults + ", " + repairs + " repair, seed " + seed + ", "
                    + writer.retries() + " writes of the application retried", stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            assertThat(t.divergences()).as("lost, stale or not deleted").isZero();
            // read once the writer stopped (the topic reader waits for a quiet topic): a copy caused by a step-down would be a third
            assertThat(t.copies()).as("copies on the change topic: the first one and the repair's")
                    .containsExactly(Pipeline.ONE_COPY, Pipeline.ONE_COPY);
            p.assertTasksRunning(stack.rest());
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    /** A copy (one task) and a split copy (three tasks, each a chunk), the primaries stepping down all along. */
    @ParameterizedTest(name = "{0} task(s)")
    @ValueSource(ints = {1, 3})
    void stepDownsDuringACopyLoseNothingAndCopyOnce(int tasks) {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline(tasks == 1 ? "failcopy" : "failsplit");
        Namespace ns = new Namespace(p.db, Pipeline.COLLECTION);
        int preload = 40_000 * FaultRounds.rounds();
        try (MongoFixture source = replicaSet(); MongoFixture dest = replicaSet();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2)) {
            long started = System.nanoTime();
            writer.preload(preload);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            writer.start();
            String faults;
            // the first step-down soon after the connector starts: a copy of 40,000 documents takes about 2 s here
            try (Failovers failovers = new Failovers(List.of(source, dest), seed, 700)) {
                stack.rest().putConnector(p.sourceConnector(), p.sourceConfig(source.uri(), Map.of("tasks.max", Integer.toString(tasks),
                        "backfill.split.min.documents", "1000", "batch.size", "100")));
                stack.rest().awaitSourceOffset(p.sourceConnector(), ns, o -> o.phase() == SourceOffset.Phase.STREAM,
                        "the switch to streaming after the copy", Duration.ofMinutes(4));
                int during = failovers.stepDowns();
                System.out.printf("FAULTS failover: a copy of %d documents on %d task(s) through %d step-downs%n", preload, tasks, during);
                assertThat(during).as("step-downs during the copy").isPositive();
                Pipeline.awaitWrites(writer::writes, writer.writes(), Pipeline.STRETCH_OF_WRITES, "streaming through step-downs");
                faults = failovers.describe();
            }
            Pipeline.Tally t = p.finish("step-downs during a " + (tasks == 1 ? "copy" : "split copy"), faults + ", seed " + seed,
                    stack.bootstrapServers(), IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            Pipeline.Comparison byteForByte = p.compare(source.client(), dest.client());
            System.out.println("FAULTS failover: source vs destination: " + byteForByte);
            assertThat(t.divergences()).as("lost, stale or not deleted").isZero();
            assertThat(byteForByte.differing()).as("documents that differ").isEmpty();
            assertThat(t.copies()).as("copies on the change topic: one").hasSize(1);
            stack.rest().awaitRunning(p.sourceConnector(), tasks, Duration.ofSeconds(30));
            p.assertTasksRunning(stack.rest());
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    /** The in-process replica set whatever MONGO_URI says: only it steps down on demand. */
    private static MongoFixture replicaSet() {
        return MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
    }
}
