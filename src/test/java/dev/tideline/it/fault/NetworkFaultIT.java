package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.it.support.MongoFixture;
import dev.tideline.it.support.TcpProxy;
import dev.tideline.it.support.TestStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;

/**
 * The network to the source and to the destination cut (connections reset and refused, or
 * black-holed: accepted, never answered) for 10–30 s while the application keeps writing, then
 * healed; and a stop of the connector while its source is black-holed, which must complete within
 * a bounded time, the task recovering once the network does.
 */
class NetworkFaultIT {
    /** A stop may wait for one driver timeout (connect / server selection, 3 s here) and our own bounded close. */
    private static final Duration STOP_BOUND = Duration.ofSeconds(30);

    @Test
    void cutsToSourceAndDestinationLoseNothing() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Random random = new Random(seed);
        Pipeline p = new Pipeline("net");
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withOplog();
             TcpProxy toSource = new TcpProxy(source.port()); TcpProxy toDest = new TcpProxy(dest.port());
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2)) {
            long started = System.nanoTime();
            writer.preload(1_000);
            p.startSink(stack.rest(), toDest.mongoUri(), Map.of());
            p.startSource(stack.rest(), toSource.mongoUri(), Map.of());
            writer.start();
            StringBuilder faults = new StringBuilder();
            for (int round = 0; round < FaultRounds.rounds(); round++) {
                Pipeline.sleep(3_000);
                int s = FaultRounds.outageSeconds(random);
                toSource.refuse(); // every connection reset, the port closed
                Pipeline.sleep(s * 1000L);
                toSource.forward();
                faults.append("source refused ").append(s).append(" s; ");
                Pipeline.sleep(3_000);
                int d = FaultRounds.outageSeconds(random);
                toDest.blackHole(); // writes sent, never answered
                Pipeline.sleep(d * 1000L);
                toDest.forward();
                faults.append("destination black-holed ").append(d).append(" s; ");
                System.out.printf("FAULTS net: round %d, %s after %d writes%n", round + 1, faults, writer.writes());
            }
            Pipeline.Tally t = p.finish("network cuts", faults + "seed " + seed, stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            assertThat(t.divergences()).as("lost or not deleted").isZero();
            p.assertTasksRunning(stack.rest());
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    @Test
    void stoppingWhileTheSourceIsBlackHoledIsBoundedAndTheTaskRecovers() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("blackhole");
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withOplog();
             TcpProxy toSource = new TcpProxy(source.port());
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2)) {
            long started = System.nanoTime();
            writer.preload(500);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            p.startSource(stack.rest(), toSource.mongoUri(), Map.of());
            writer.start();
            Pipeline.sleep(3_000);
            toSource.blackHole();
            Pipeline.sleep(5_000); // the stream's getMore is now waiting on a socket that will never answer

            long stopAt = System.nanoTime();
            stack.rest().stop(p.sourceConnector());
            awaitState(stack, p.sourceConnector(), "STOPPED", STOP_BOUND.plusSeconds(30));
            long stopMillis = Duration.ofNanos(System.nanoTime() - stopAt).toMillis();

            long restartAt = System.nanoTime();
            stack.rest().resume(p.sourceConnector()); // still black-holed: the connector must come up and wait
            awaitConnectorState(stack, p.sourceConnector(), Duration.ofSeconds(60));
            long resumeMillis = Duration.ofNanos(System.nanoTime() - restartAt).toMillis();
            Pipeline.sleep(5_000);
            toSource.forward();
            long healedAt = System.nanoTime();
            stack.rest().awaitRunning(p.sourceConnector(), 1, Duration.ofSeconds(120));
            Pipeline.sleep(3_000);
            writer.stop();
            p.awaitDestination(dest.client(), writer.expected(), Pipeline.CONVERGE);
            long recoveredMillis = Duration.ofNanos(System.nanoTime() - healedAt).toMillis();
            long abandoned = abandonedStops(stack, p.sourceConnector());
            Pipeline.Tally t = p.tally("black hole + stop/resume", "source black-holed ~" + (Duration.ofNanos(healedAt - stopAt)
                    .toSeconds() + 5) + " s; stop took " + stopMillis + " ms (" + abandoned + " task stop(s) over Connect's grace), resume "
                    + resumeMillis + " ms; equal again " + recoveredMillis + " ms after healing", stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            FaultRounds.print(t);
            assertThat(Duration.ofMillis(stopMillis)).as("stop while black-holed").isLessThan(STOP_BOUND);
            assertThat(abandoned).as("task stops that Connect gave up on (task.shutdown.graceful.timeout.ms)").isZero();
            assertThat(t.divergences()).as("lost or not deleted").isZero();
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    /**
     * How often the worker gave up waiting for this connector's task to stop: Connect logs it when
     * {@code stop()} outlasts {@code task.shutdown.graceful.timeout.ms}, the sign of a close path
     * hanging on a dead socket (the REST call itself returns regardless).
     */
    private static long abandonedStops(TestStack stack, String connector) {
        Path log = stack.workDir().resolve("worker-0").resolve("worker-0.log");
        try (Stream<String> lines = Files.lines(log)) {
            return lines.filter(l -> l.contains("Graceful stop of task " + connector + "-")).count();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the worker's log " + log, e);
        }
    }

    private static void awaitState(TestStack stack, String connector, String state, Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        while (System.nanoTime() < end) {
            if (state.equals(stack.rest().statusOrEmpty(connector).path("connector").path("state").asText())) {
                return;
            }
            Pipeline.sleep(200);
        }
        throw new AssertionError(connector + " not " + state + " within " + deadline + ": " + stack.rest().statusOrEmpty(connector));
    }

    /** The connector itself RUNNING (its tasks may wait for the network). */
    private static void awaitConnectorState(TestStack stack, String connector, Duration deadline) {
        awaitState(stack, connector, "RUNNING", deadline);
    }
}
