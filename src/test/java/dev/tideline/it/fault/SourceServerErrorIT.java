package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.it.support.FaultInjectingBackend;
import dev.tideline.it.support.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.mongo.MongoErrors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;

/**
 * Server errors answered by the source to the connector's reads while the application writes: the
 * transient ones (43, 91, 10107, 11600) make the capture reopen from its last position; 286
 * ChangeStreamHistoryLost follows the {@code resnapshot} policy, which copies the collection again.
 * Each is injected several times in a row so that it outlasts the driver's own single resume.
 */
class SourceServerErrorIT {

    private record Injection(int code, String name) {
    }

    private static final List<Injection> TRANSIENT = List.of(
            new Injection(MongoErrors.CURSOR_NOT_FOUND, "CursorNotFound"),
            new Injection(MongoErrors.SHUTDOWN_IN_PROGRESS, "ShutdownInProgress"),
            new Injection(MongoErrors.NOT_WRITABLE_PRIMARY, "NotWritablePrimary"),
            new Injection(MongoErrors.INTERRUPTED_AT_SHUTDOWN, "InterruptedAtShutdown"));

    @Test
    void transientErrorsAndLostHistoryLoseNothing() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("errors");
        FaultInjectingBackend backend = new FaultInjectingBackend();
        try (MongoFixture source = MongoFixture.inProcess(backend, true); MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2)) {
            long started = System.nanoTime();
            writer.preload(1_000);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            p.startSource(stack.rest(), source.uri(), Map.of("lost.history.policy", "resnapshot"));
            TopicReader.readUntil(stack.bootstrapServers(), p.topic, 1_000, Duration.ofMinutes(2)); // the backfill is done
            writer.start();
            StringBuilder faults = new StringBuilder();
            for (int round = 0; round < FaultRounds.rounds(); round++) {
                for (Injection i : TRANSIENT) {
                    injectAndAwait(backend, p, i, 3, Set.of("getMore", "aggregate"));
                    faults.append(i.code()).append(' ').append(i.name()).append(" x3, ");
                }
            }
            // the transient errors alone lost nothing, deletes included; and the stream is caught up, so the
            // 286 below finds no window of changes out of reach (that case: lostHistoryAfterAGapIsCopiedAgain)
            writer.stop();
            p.awaitDestination(dest.client(), writer.expected(), Pipeline.CONVERGE);
            long historyLostBefore = historyLostNotices(stack, p);
            injectAndAwait(backend, p, new Injection(MongoErrors.CHANGE_STREAM_HISTORY_LOST, "ChangeStreamHistoryLost"), 1,
                    Set.of("getMore"));
            faults.append("286 ChangeStreamHistoryLost x1");
            long historyLost = awaitHistoryLostNotices(stack, p, historyLostBefore);
            writer.start(); // and the application goes on writing through the resnapshot's copy
            Pipeline.Tally t = p.finish("source server errors", faults + " (" + backend.injected() + " commands failed); "
                            + historyLost + " lost-history notice(s), resnapshot", stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            assertThat(historyLost).as("one history_lost notice for the one 286").isEqualTo(1);
            assertThat(t.divergences()).as("lost or not deleted").isZero();
            p.assertTasksRunning(stack.rest());
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    /**
     * A real gap: the connector is stopped while the application writes, and its resume is answered
     * with 286 (the oplog rolled past its token). {@code resnapshot} copies the collection again, so
     * every document written in the gap arrives; a document DELETED in the gap leaves no trace a copy
     * can see, so the source marks the copy's end on the topic and the sink sweeps what the copy did
     * not find. The destination must end EQUAL to the source: same documents, byte for byte.
     */
    @Test
    void lostHistoryAfterAGapIsCopiedAgainAndSweptToEqual() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("gap");
        FaultInjectingBackend backend = new FaultInjectingBackend();
        try (MongoFixture source = MongoFixture.inProcess(backend, true); MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 0)) {
            long started = System.nanoTime();
            writer.preload(500);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            p.startSource(stack.rest(), source.uri(), Map.of("lost.history.policy", "resnapshot"));
            writer.write(200);
            p.awaitDestination(dest.client(), writer.expected(), Duration.ofMinutes(2));
            // the gap must follow a committed resume token (not a backfill position nor a start time):
            // the resume is what a lost history answers
            stack.rest().awaitCommittedToken(p.sourceConnector(), new Namespace(p.db, Pipeline.COLLECTION), Duration.ofSeconds(60));
            stack.rest().stop(p.sourceConnector());
            awaitStopped(stack, p.sourceConnector());
            writer.write(300); // the gap: nothing captures these
            // what the copy cannot see: documents deleted in the gap, still at the destination
            int deletedInTheGap = p.differences(dest.client(), writer.expected()).notDeleted();
            // older than the margin a new stream start keeps (ServerClock, 2 s): really out of reach
            Pipeline.sleep(5_000);
            backend.failNext(p.db, Set.of("aggregate"), FaultInjectingBackend.RESUMING, MongoErrors.CHANGE_STREAM_HISTORY_LOST,
                    "ChangeStreamHistoryLost", 1);
            stack.rest().resume(p.sourceConnector());
            stack.rest().awaitRunning(p.sourceConnector(), 1, Duration.ofSeconds(90));
            long resumedAt = System.nanoTime();
            writer.write(200); // and changes streamed after the copy began, which the sweep must keep
            p.awaitDestination(dest.client(), writer.expected(), Duration.ofMinutes(3));
            long equalMillis = Duration.ofNanos(System.nanoTime() - resumedAt).toMillis();
            Pipeline.Tally t = p.tally("lost history after a gap", "connector stopped for 300 writes, its resume answered 286 x"
                            + backend.injected() + ", policy resnapshot; " + deletedInTheGap + " deleted in the gap, equal "
                            + equalMillis + " ms after the resume", stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            FaultRounds.print(t);
            Pipeline.Comparison equal = p.compare(source.client(), dest.client());
            long sweptBySink = sweptBySink(stack, p);
            System.out.println("FAULTS gap: " + equal + "; deleted in the gap " + deletedInTheGap + ", swept by the sink "
                    + sweptBySink + " (those, and any deleted during the copy before it reached them)");
            assertThat(backend.injected()).isEqualTo(1);
            assertThat(deletedInTheGap).as("the scenario deletes documents in the gap (else the sweep is untested)").isPositive();
            assertThat(t.divergences()).as("lost, stale or not deleted").isZero();
            // the gap's deletes, which only the complete marker carries, and documents deleted during the copy
            // before it reached them (their own deletes follow the marker)
            assertThat(t.sweptInTopic()).as("deletes carried by the complete marker").isGreaterThanOrEqualTo(deletedInTheGap);
            assertThat(sweptBySink).as("documents the sink swept").isGreaterThanOrEqualTo(deletedInTheGap);
            assertThat(equal.differing()).as("documents differing between source and destination").isEmpty();
            assertThat(equal.destinationCount()).isEqualTo(equal.sourceCount()).isEqualTo(writer.expected().size());
            assertThat(p.resnapshotMarkers(stack.bootstrapServers())).as("markers on the change topic").containsExactly(
                    "resnapshot.begin", "resnapshot.complete");
            p.assertTasksRunning(stack.rest());
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    /** What the sink says it swept on this pipeline's topic (its "swept N documents" log lines). */
    private static long sweptBySink(TestStack stack, Pipeline p) {
        Path log = stack.workDir().resolve("worker-0").resolve("worker-0.log");
        Pattern swept = Pattern.compile("complete on " + Pattern.quote(p.topic) + "-\\d+: swept (\\d+) documents");
        try (Stream<String> lines = Files.lines(log)) {
            return lines.map(swept::matcher).filter(Matcher::find).mapToLong(m -> Long.parseLong(m.group(1))).sum();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the worker's log " + log, e);
        }
    }

    private static void awaitStopped(TestStack stack, String connector) {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!"STOPPED".equals(stack.rest().statusOrEmpty(connector).path("connector").path("state").asText())) {
            if (System.nanoTime() > end) {
                throw new AssertionError(connector + " not STOPPED within 60 s");
            }
            Pipeline.sleep(200);
        }
    }

    /** Arms the fault and waits until the connector has run into all of it, then gives it time to reopen. */
    private static void injectAndAwait(FaultInjectingBackend backend, Pipeline p, Injection i, int times, Set<String> commands) {
        int before = backend.injected();
        backend.failNext(p.db, commands, i.code(), i.name(), times);
        long end = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!backend.spent()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("the connector did not read again after " + i.name() + " within 2 minutes ("
                        + (backend.injected() - before) + " of " + times + " delivered)");
            }
            Pipeline.sleep(100);
        }
        System.out.printf("FAULTS errors: %d %s delivered %d time(s)%n", i.code(), i.name(), backend.injected() - before);
        Pipeline.sleep(2_000);
    }

    /** The history_lost notices since {@code before}, once there is at least one (the policy announces itself). */
    private static long awaitHistoryLostNotices(TestStack stack, Pipeline p, long before) {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        long now;
        while ((now = historyLostNotices(stack, p) - before) == 0 && System.nanoTime() < end) {
            Pipeline.sleep(500);
        }
        return now;
    }

    private static long historyLostNotices(TestStack stack, Pipeline p) {
        List<ConsumerRecord<byte[], byte[]>> control = TopicReader.readAll(stack.bootstrapServers(), "fault-" + p.name + ".control",
                Duration.ofSeconds(2));
        return control.stream().filter(r -> r.value() != null
                && new String(r.value(), StandardCharsets.ISO_8859_1).contains("history_lost")).count();
    }
}
