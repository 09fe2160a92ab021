package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import dev.tideline.it.support.MongoFixture;
import dev.tideline.it.support.TcpProxy;
import dev.tideline.it.support.TestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;

/**
 * The source server restarted with its data kept (mongo-java-server's H2 backend, in a file) while
 * the application writes: the server goes away (connections reset, the port closed), comes back on
 * another port behind the same address (a proxy), and the capture resumes from its position.
 */
class SourceRestartFaultIT {
    @Test
    void sourceRestartWithItsDataLosesNothing() throws Exception {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("restart");
        Path file = Files.createTempDirectory(stack.workDir(), "h2-source").resolve("source.mv");
        MongoServer server = startH2(file);
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
                Pipeline.sleep(4_000);
                toSource.refuse(); // the server's port goes away with it
                server.shutdownNow();
                Pipeline.sleep(3_000);
                server = startH2(file);
                toSource.retarget(server.getLocalAddress().getPort());
                toSource.forward();
                faults.append("source restarted (down ~3 s); ");
                System.out.printf("FAULTS restart: round %d, source server restarted on its H2 file after %d writes%n",
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

    /** mongo-java-server on its H2 file (data kept across restarts), oplog on, on a free port. */
    private static MongoServer startH2(Path file) {
        MongoServer server = new MongoServer(new H2Backend(file.toString()));
        server.enableOplog();
        server.bind("127.0.0.1", 0);
        return server;
    }
}
