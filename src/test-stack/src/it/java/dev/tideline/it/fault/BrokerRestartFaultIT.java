package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * The Kafka broker restarted under a running pipeline, its data kept: a clean shutdown, then (from
 * the second round on) a kill -9. The worker, the source's producer and the sink's consumer ride it
 * out; nothing is lost.
 */
class BrokerRestartFaultIT {
    @Test
    void brokerRestartsLoseNothing() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Random random = new Random(seed);
        Pipeline p = new Pipeline("broker");
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2)) {
            long started = System.nanoTime();
            writer.preload(1_000);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            p.startSource(stack.rest(), source.uri(), Map.of());
            writer.start();
            StringBuilder faults = new StringBuilder();
            for (int round = 0; round < FaultRounds.rounds(); round++) {
                Waits.pause(Duration.ofMillis(2_000 + random.nextInt(4_000)), "the round's random time of the restart");
                boolean hard = round % 2 == 1;
                long at = System.nanoTime();
                stack.restartBroker(hard);
                long millis = Duration.ofNanos(System.nanoTime() - at).toMillis();
                faults.append(hard ? "kill -9 + restart" : "clean restart").append(" of the broker (").append(millis).append(" ms); ");
                System.out.printf("FAULTS broker: round %d, %s after %d writes%n", round + 1, faults, writer.writes());
            }
            Pipeline.Tally t = p.finish("broker restart", faults + "seed " + seed, stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            assertThat(t.divergences()).as("lost or not deleted").isZero();
            p.assertTasksRunning(stack.rest());
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }
}
