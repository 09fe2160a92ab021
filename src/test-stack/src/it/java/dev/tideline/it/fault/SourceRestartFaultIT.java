package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * The source replica set restarted with its data kept while the application writes: every member goes away
 * (connections reset, the ports closed, every cursor lost) and comes back on its own address with its data and
 * oplog, and the capture resumes from its position. The stand-in keeps what a mongod keeps on disk across the
 * restart ({@link AwaitingMemoryBackend#keepDataOnClose}); source, sink and application reach it with
 * {@code replicaSet=}, as production MongoDB.
 */
class SourceRestartFaultIT {
    @Test
    void sourceRestartWithItsDataLosesNothing() throws Exception {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("restart");
        MongoFixture source = MongoFixture.inProcess(new AwaitingMemoryBackend().keepDataOnClose(), true);
        try (source;
             MongoClient sourceClient = MongoClients.create(source.uri());
             MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(sourceClient), seed, 5)) {
            long started = System.nanoTime();
            writer.preload(500);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            p.startSource(stack.rest(), source.uri(), Map.of());
            writer.start();
            StringBuilder faults = new StringBuilder();
            for (int round = 0; round < FaultRounds.rounds(); round++) {
                Pipeline.awaitWrites(writer::writes, writer.writes(), Pipeline.STRETCH_OF_WRITES, "writing again before the restart");
                source.stopServers(); // the members' ports go away with them
                Waits.pause(Duration.ofSeconds(3), "the source replica set's outage length");
                source.startServers();
                faults.append("source replica set restarted (down ~3 s); ");
                System.out.printf("FAULTS restart: round %d, source replica set restarted with its data after %d writes%n",
                        round + 1, writer.writes());
            }
            Pipeline.Tally t = p.finish("source server restart", faults + "seed " + seed + ", " + writer.retries()
                            + " writes of the application retried", stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            assertThat(t.divergences()).as("lost or not deleted").isZero();
            p.assertTasksRunning(stack.rest());
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }
}
