package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.standin.MongoFixture;
import dev.tideline.standin.TcpProxy;
import dev.tideline.it.support.TestStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * The network to the source and to the destination cut (connections reset and refused, or
 * black-holed: accepted, never answered) for 10–30 s while the application keeps writing, then
 * healed; and a stop or a reconfiguration of the connector while its source is black-holed, which
 * must complete within a bounded time, the task recovering once the network does.
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
                Pipeline.awaitWrites(writer::writes, writer.writes(), Pipeline.STRETCH_OF_WRITES, "streaming before the source's cut");
                int s = FaultRounds.outageSeconds(random);
                toSource.refuse(); // every connection reset, the port closed
                Waits.pause(Duration.ofSeconds(s), "the source's outage length");
                toSource.forward();
                faults.append("source refused ").append(s).append(" s; ");
                Pipeline.awaitWrites(writer::writes, writer.writes(), Pipeline.STRETCH_OF_WRITES, "streaming before the destination's cut");
                int d = FaultRounds.outageSeconds(random);
                toDest.blackHole(); // writes sent, never answered
                Waits.pause(Duration.ofSeconds(d), "the destination's outage length");
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
            Pipeline.awaitWrites(writer::writes, writer.writes(), Pipeline.STRETCH_OF_WRITES, "streaming before the black hole");
            long swallowedBefore = toSource.swallowedBytes();
            toSource.blackHole();
            awaitSwallowed(toSource, swallowedBefore); // the stream's getMore is now waiting on a socket that will never answer

            long stopAt = System.nanoTime();
            stack.rest().stop(p.sourceConnector());
            awaitState(stack, p.sourceConnector(), "STOPPED", STOP_BOUND.plusSeconds(30));
            long stopMillis = Duration.ofNanos(System.nanoTime() - stopAt).toMillis();

            long restartAt = System.nanoTime();
            stack.rest().resume(p.sourceConnector()); // still black-holed: the connector must come up and wait
            awaitConnectorState(stack, p.sourceConnector(), Duration.ofSeconds(60));
            long resumeMillis = Duration.ofNanos(System.nanoTime() - restartAt).toMillis();
            Waits.pause(Duration.ofSeconds(5), "the black hole lasts on while the resumed connector waits");
            toSource.forward();
            long healedAt = System.nanoTime();
            stack.rest().awaitRunning(p.sourceConnector(), 1, Duration.ofSeconds(120));
            Pipeline.awaitWrites(writer::writes, writer.writes(), Pipeline.STRETCH_OF_WRITES, "streaming after the healing");
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
     * {@code PUT /connectors/{name}/config} while the task's connection to the source is black-holed.
     * Same address: Connect validates the new config first, and validation reaches for the source, so
     * the PUT is refused within the probe's timeout with a message naming the unreachable source (it
     * must not hang), the running task keeps its config and recovers once the network does. Another
     * address (the operator re-points the connector, e.g. to a healthy member): accepted, the old task,
     * stuck on the dead socket, stops within Connect's grace and the new one delivers at once.
     */
    @Test
    void reconfiguringWhileTheSourceIsBlackHoledIsBoundedAndTheTaskRecovers() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("reconf");
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withOplog();
             TcpProxy toSource = new TcpProxy(source.port()); TcpProxy healthy = new TcpProxy(source.port());
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 0)) {
            long started = System.nanoTime();
            writer.preload(300);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            p.startSource(stack.rest(), toSource.mongoUri(), Map.of());
            writer.write(100);
            p.awaitDestination(dest.client(), writer.expected(), Pipeline.CONVERGE);

            long swallowedBefore = toSource.swallowedBytes();
            toSource.blackHole();
            writer.write(100);
            awaitSwallowed(toSource, swallowedBefore); // the stream's getMore now waits on a socket that will never answer
            long putAt = System.nanoTime();
            HttpResponse<String> refused = stack.rest().tryPutConnector(p.sourceConnector(),
                    p.sourceConfig(toSource.mongoUri(), Map.of("batch.size", "500")));
            long refusedMillis = Duration.ofNanos(System.nanoTime() - putAt).toMillis();
            Waits.pause(Duration.ofSeconds(2), "the black hole lasts on after the refused PUT");
            toSource.forward();
            long healedAt = System.nanoTime();
            p.awaitDestination(dest.client(), writer.expected(), Pipeline.CONVERGE);
            long recoveredMillis = Duration.ofNanos(System.nanoTime() - healedAt).toMillis();

            swallowedBefore = toSource.swallowedBytes();
            toSource.blackHole();
            writer.write(100);
            awaitSwallowed(toSource, swallowedBefore);
            long repointAt = System.nanoTime();
            stack.rest().putConnector(p.sourceConnector(), p.sourceConfig(healthy.mongoUri(), Map.of("batch.size", "500")));
            awaitTaskConfig(stack, p.sourceConnector(), healthy.mongoUri(), STOP_BOUND);
            stack.rest().awaitRunning(p.sourceConnector(), 1, STOP_BOUND);
            long repointMillis = Duration.ofNanos(System.nanoTime() - repointAt).toMillis();
            p.awaitDestination(dest.client(), writer.expected(), Pipeline.CONVERGE);
            long deliveredMillis = Duration.ofNanos(System.nanoTime() - repointAt).toMillis();
            toSource.forward();
            long abandoned = abandonedStops(stack, p.sourceConnector());
            Pipeline.Tally t = p.tally("black hole + reconfigure", "same address: PUT refused in " + refusedMillis + " ms ("
                            + refused.statusCode() + "), equal " + recoveredMillis + " ms after healing; re-pointed: new task RUNNING in "
                            + repointMillis + " ms, equal after " + deliveredMillis + " ms, " + abandoned + " task stop(s) over "
                            + "Connect's grace", stack.bootstrapServers(), IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            FaultRounds.print(t);
            assertThat(refused.statusCode()).as("PUT to an unreachable address: " + refused.body()).isEqualTo(400);
            assertThat(refused.body()).contains("cannot reach the source");
            assertThat(Duration.ofMillis(refusedMillis)).as("PUT answered while black-holed").isLessThan(STOP_BOUND);
            assertThat(Duration.ofMillis(repointMillis)).as("reconfigured while the old connection is black-holed")
                    .isLessThan(STOP_BOUND);
            assertThat(abandoned).as("task stops that Connect gave up on (task.shutdown.graceful.timeout.ms)").isZero();
            assertThat(t.divergences()).as("lost or not deleted").isZero();
            p.assertTasksRunning(stack.rest());
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    /** Waits until the connector's task runs with the given source address (the reconfiguration reached it). */
    private static void awaitTaskConfig(TestStack stack, String connector, String uri, Duration deadline) {
        Waits.until(deadline, Duration.ofMillis(200), () -> stack.rest().taskConfigs(connector),
                tasks -> !tasks.isEmpty() && tasks.stream().allMatch(t -> uri.equals(t.get("mongodb.uri"))),
                tasks -> connector + "'s tasks not reconfigured to " + uri + " within " + deadline + "; last task configs' addresses: "
                        + (tasks == null ? null : tasks.stream().map(t -> t.get("mongodb.uri")).toList()));
    }

    /** Waits until the black-holed proxy has swallowed bytes since {@code before}: the task's request went out and hangs. */
    private static void awaitSwallowed(TcpProxy proxy, long before) {
        Waits.until("bytes swallowed by the black hole (more than " + before + ")", Duration.ofSeconds(60), Duration.ofMillis(50),
                proxy::swallowedBytes, n -> n > before);
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
        Waits.until(deadline, Duration.ofMillis(200), () -> stack.rest().statusOrEmpty(connector),
                status -> state.equals(status.path("connector").path("state").asText()),
                status -> connector + " not " + state + " within " + deadline + ": " + status);
    }

    /** The connector itself RUNNING (its tasks may wait for the network). */
    private static void awaitConnectorState(TestStack stack, String connector, Duration deadline) {
        awaitState(stack, connector, "RUNNING", deadline);
    }
}
