package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import dev.tideline.standin.TcpProxy;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * The source server restarted with its data kept while the application writes: the server goes away
 * (connections reset, the port closed, every cursor lost), comes back on another port behind the same
 * address (a proxy) with its data and oplog, and the capture resumes from its position. The stand-in
 * keeps what a mongod keeps on disk across the restart ({@link AwaitingMemoryBackend#keepDataOnClose}).
 */
class SourceRestartFaultIT {
    @Test
    void sourceRestartWithItsDataLosesNothing() throws Exception {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("restart");
        AwaitingMemoryBackend data = new AwaitingMemoryBackend().keepDataOnClose();
        MongoServer server = new MongoServer(data);
        server.enableOplog();
        server.bind("127.0.0.1", 0);
        try (TcpProxy toSource = new TcpProxy(server.getLocalAddress().getPort());
             MongoClient sourceClient = MongoClients.create(toSource.mongoUri());
             MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(sourceClient), seed, 5)) {
            long started = System.nanoTime();
            writer.preload(500);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            p.startSource(stack.rest(), toSource.mongoUri(), Map.of());
            writer.start();
            StringBuilder faults = new StringBuilder();
            for (int round = 0; round < FaultRounds.rounds(); round++) {
                Pipeline.awaitWrites(writer::writes, writer.writes(), Pipeline.STRETCH_OF_WRITES, "writing again before the restart");
                toSource.refuse(); // the server's port goes away with it
                server.shutdownNow();
                Waits.pause(Duration.ofSeconds(3), "the source server's outage length");
                server = restarted(data);
                toSource.retarget(server.getLocalAddress().getPort());
                toSource.forward();
                faults.append("source restarted (down ~3 s); ");
                System.out.printf("FAULTS restart: round %d, source server restarted with its data after %d writes%n",
                        round + 1, writer.writes());
            }
            Pipeline.Tally t = p.finish("source server restart", faults + "seed " + seed + ", " + writer.retries()
                            + " writes of the application retried", stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            assertThat(t.divergences()).as("lost or not deleted").isZero();
            p.assertTasksRunning(stack.rest());
        } finally {
            p.deleteConnectors(stack.rest());
            server.shutdownNow();
        }
    }

    /** The restarted process over the data the stopped one kept (its oplog included), on a free port. */
    private static MongoServer restarted(AwaitingMemoryBackend data) {
        MongoServer server = new MongoServer(data);
        server.bind("127.0.0.1", 0);
        return server;
    }
}
