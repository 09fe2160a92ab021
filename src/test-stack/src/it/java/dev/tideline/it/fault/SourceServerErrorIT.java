package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.FaultInjectingBackend;
import dev.tideline.standin.MongoFixture;
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
import java.util.function.ToLongFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Server errors answered by the source to the connector's reads while the application writes: the
 * transient ones (43, 91, 10107, 11600) make the capture reopen from its last position. 286
 * ChangeStreamHistoryLost is believed only once the server confirms it (a stream no longer opens at
 * the position): then the {@code resnapshot} policy copies the collection again. Every copy, the first
 * included, is bracketed by {@code resnapshot.begin} / {@code resnapshot.complete} markers, so a
 * connector that copied twice leaves two pairs on the topic. A real lost history needs the stand-in's
 * capped oplog (which MongoDB's is), so these scenarios run on the in-process stand-in only.
 */
class SourceServerErrorIT {

    private record Injection(int code, String name) {
    }

    private record Outage(int failedReads, int notDeletedAtTheRoll) {
    }

    private static final List<Injection> TRANSIENT = List.of(
            new Injection(MongoErrors.CURSOR_NOT_FOUND, "CursorNotFound"),
            new Injection(MongoErrors.SHUTDOWN_IN_PROGRESS, "ShutdownInProgress"),
            new Injection(MongoErrors.NOT_WRITABLE_PRIMARY, "NotWritablePrimary"),
            new Injection(MongoErrors.INTERRUPTED_AT_SHUTDOWN, "InterruptedAtShutdown"));
    private static final Injection HISTORY_LOST = new Injection(MongoErrors.CHANGE_STREAM_HISTORY_LOST, "ChangeStreamHistoryLost");
    /**
     * Transient errors, each several times in a row so that it outlasts the driver's own single resume;
     * then a 286 whose history the server still holds (the source checks, reopens, and copies nothing);
     * then a real loss while the connector runs: its reads fail long enough for the application's writes
     * to roll the (capped) oplog past its position, and the resnapshot copy runs while the writes go on.
     */
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
            p.startSource(stack.rest(), monitoredClosely(source.uri()), Map.of("lost.history.policy", "resnapshot"));
            TopicReader.readUntil(stack.bootstrapServers(), p.topic, 1_000, Duration.ofMinutes(2)); // the backfill is done
            writer.start();
            StringBuilder faults = new StringBuilder();
            for (int round = 0; round < FaultRounds.rounds(); round++) {
                for (Injection i : TRANSIENT) {
                    injectAndAwait(backend, p, i, 3, Set.of("getMore", "aggregate"));
                    faults.append(i.code()).append(' ').append(i.name()).append(" x3, ");
                }
            }
            // a 286 on a live cursor whose position the oplog still holds (nothing is capped): not a lost history
            long unfoundedBefore = unfounded286(stack, p);
            injectAndAwait(backend, p, HISTORY_LOST, 1, Set.of("getMore"));
            faults.append("286 with its history still there x1, ");
            // the transient errors and that 286 lost nothing, deletes included, and copied nothing again
            writer.stop();
            p.awaitDestination(dest.client(), writer.expected(), Pipeline.CONVERGE);
            assertThat(unfounded286(stack, p) - unfoundedBefore).as("the source checked that 286 and found the history there")
                    .isEqualTo(1);
            assertThat(historyLostNotices(stack, p)).as("history_lost notices for a 286 whose history is there").isZero();
            assertThat(p.copies(stack.bootstrapServers())).as("copies so far: the first one only").containsExactly(Pipeline.ONE_COPY);

            // a real loss: the reads fail while the application writes, and the oplog rolls past the stream's position
            writer.start();
            Outage outage = loseTheStreamsHistory(backend, p, writer, dest);
            faults.append("91 ShutdownInProgress x").append(outage.failedReads())
                    .append(" while the oplog rolled past the stream's position");
            long historyLost = awaitHistoryLostNotices(stack, p, 0);
            Pipeline.Tally t = p.finish("source server errors", faults + " (" + backend.injected() + " commands failed); "
                            + historyLost + " lost-history notice(s), resnapshot", stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            Pipeline.Comparison equal = p.compare(source.client(), dest.client());
            System.out.println("FAULTS errors: " + equal + "; deletes not yet at the destination when the history was lost "
                    + outage.notDeletedAtTheRoll() + ", carried by the copy's complete marker " + t.sweptInTopic());
            assertThat(historyLostNotices(stack, p)).as("one history_lost notice for the one real loss").isEqualTo(1);
            assertThat(t.copies()).as("the first copy, then the resnapshot's")
                    .containsExactly(Pipeline.ONE_COPY, Pipeline.ONE_COPY);
            assertThat(t.divergences()).as("lost or not deleted").isZero();
            assertThat(t.sweptInTopic()).as("deletes made while the history was out of reach, carried by the complete marker")
                    .isPositive();
            assertThat(equal.differing()).as("documents differing between source and destination").isEmpty();
            assertThat(equal.destinationCount()).isEqualTo(equal.sourceCount()).isEqualTo(writer.expected().size());
            p.assertTasksRunning(stack.rest());
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    /**
     * A real gap: the connector is stopped while the application writes, and the oplog (capped) rolls
     * past its committed resume token, so its resume is answered 286 by the server itself. {@code resnapshot}
     * copies the collection again, so every document written in the gap arrives; a document DELETED in
     * the gap leaves no trace a copy can see, so the copy's complete marker carries it and the sink sweeps
     * what the copy did not find. The destination must end EQUAL to the source: same documents, byte for byte.
     */
    @Test
    void lostHistoryAfterAGapIsCopiedAgainAndSweptToEqual() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("gap");
        AwaitingMemoryBackend backend = new AwaitingMemoryBackend();
        try (MongoFixture source = MongoFixture.inProcess(backend, true); MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2)) {
            long started = System.nanoTime();
            writer.preload(500);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            p.startSource(stack.rest(), source.uri(), Map.of("lost.history.policy", "resnapshot"));
            writer.write(200);
            p.awaitDestination(dest.client(), writer.expected(), Duration.ofMinutes(2));
            // the gap must follow a committed resume token: a stream position, not the copy's start (a copy
            // that outlived the oplog window is parked, not copied again)
            stack.rest().awaitCommittedToken(p.sourceConnector(), new Namespace(p.db, Pipeline.COLLECTION), Duration.ofSeconds(60));
            stack.rest().stop(p.sourceConnector());
            awaitStopped(stack, p.sourceConnector());
            writer.write(300); // the gap: nothing captures these
            // what the copy cannot see: documents deleted in the gap, still at the destination
            int deletedInTheGap = p.differences(dest.client(), writer.expected()).notDeleted();
            // older than the margin a copy's stream start keeps (2 s, in whole seconds: 3 s and a half are always past it),
            // so that start stays inside what the oplog holds
            Waits.pause(Duration.ofMillis(3_500), "older than the margin a copy's stream start keeps (a clock margin)");
            rollTheOplogPast(backend, GAP_ENTRIES_KEPT);
            stack.rest().resume(p.sourceConnector());
            stack.rest().awaitRunning(p.sourceConnector(), 1, Duration.ofSeconds(90));
            long historyLost = awaitHistoryLostNotices(stack, p, 0);
            long resumedAt = System.nanoTime();
            writer.start(); // and the application goes on writing through the copy: changes the sweep must keep
            Pipeline.awaitWrites(writer::writes, writer.writes(), Pipeline.STRETCH_OF_WRITES, "writes through the copy");
            writer.stop();
            p.awaitDestination(dest.client(), writer.expected(), Duration.ofMinutes(3));
            long equalMillis = Duration.ofNanos(System.nanoTime() - resumedAt).toMillis();
            Pipeline.Tally t = p.tally("lost history after a gap", "connector stopped for 300 writes, the oplog rolled past its "
                            + "token (its resume answered 286 by the server), policy resnapshot; " + deletedInTheGap
                            + " deleted in the gap, equal " + equalMillis + " ms after the history_lost notice", stack.bootstrapServers(),
                    IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            FaultRounds.print(t);
            Pipeline.Comparison equal = p.compare(source.client(), dest.client());
            long sweptBySink = sweptBySink(stack, p);
            System.out.println("FAULTS gap: " + equal + "; deleted in the gap " + deletedInTheGap + ", swept by the sink "
                    + sweptBySink + " (those, and any deleted during the copy before it reached them)");
            assertThat(historyLost).as("history_lost notices for the one lost resume").isEqualTo(1);
            assertThat(historyLostNotices(stack, p)).as("history_lost notices in all").isEqualTo(1);
            assertThat(deletedInTheGap).as("the scenario deletes documents in the gap (else the sweep is untested)").isPositive();
            assertThat(t.divergences()).as("lost, stale or not deleted").isZero();
            // the gap's deletes, which only the resnapshot's complete marker carries, and documents deleted during
            // the copy before it reached them (their own deletes follow the marker); the first copy's marker sweeps none
            assertThat(t.sweptInTopic()).as("deletes carried by the complete markers").isGreaterThanOrEqualTo(deletedInTheGap);
            assertThat(sweptBySink).as("documents the sink swept").isGreaterThanOrEqualTo(deletedInTheGap);
            assertThat(equal.differing()).as("documents differing between source and destination").isEmpty();
            assertThat(equal.destinationCount()).isEqualTo(equal.sourceCount()).isEqualTo(writer.expected().size());
            assertThat(t.copies()).as("copies on the change topic: the first, then the resnapshot's")
                    .containsExactly(Pipeline.ONE_COPY, Pipeline.ONE_COPY);
            p.assertTasksRunning(stack.rest());
        } finally {
            p.deleteConnectors(stack.rest());
        }
    }

    /**
     * The source's URI with the driver checking each member every 500 ms (the least the driver allows) instead of
     * every 10 s. 91, 10107 and 11600 are state-change errors: the driver marks the member Unknown and waits for
     * the member's next awaitable {@code hello} (the streaming protocol), which a server whose state did not really
     * change answers only when {@code heartbeatFrequencyMS} is up
     * (https://github.com/mongodb/specifications/blob/master/source/server-discovery-and-monitoring/server-monitoring.md#streaming-protocol).
     * With the default, each injected error cost a server-selection time-out and the back-off after it, about
     * 30 s an error code; the connector's handling (reopen from its last position) is the same either way.
     */
    private static String monitoredClosely(String uri) {
        return uri + (uri.contains("?") ? "&" : "?") + "heartbeatFrequencyMS=500";
    }

    /** Gap entries the capped oplog keeps: fewer than the gap wrote, so the entry after the resume token is gone. */
    private static final int GAP_ENTRIES_KEPT = 100;
    /**
     * How long the outage goes on after the oplog rolled: more than the margin a copy's stream start keeps
     * (2 s, in whole seconds: past 3 s the start's second is after the roll's), so the copy that follows starts after
     * what the oplog lost.
     */
    private static final long AFTER_THE_ROLL_MS = 3_500;

    /**
     * The oplog of a busy server: capped to its newest {@code kept} entries, the older ones are gone (as when
     * MongoDB's capped oplog rolls over), then the cap is lifted (as {@code replSetResizeOplog} grows it) so that
     * the copy that follows is not outrun by the application's writes too; that case is another scenario's.
     */
    private static void rollTheOplogPast(AwaitingMemoryBackend backend, int kept) {
        int before = backend.oplogSize();
        backend.capOplog(kept, 0);
        backend.capOplog(0, 0);
        System.out.printf("FAULTS oplog rolled: %d entries, the newest %d kept%n", before, backend.oplogSize());
    }

    /**
     * The connector's change-stream reads fail (91 ShutdownInProgress, transient: it backs off and reopens)
     * while the application writes; once it has written several times what the oplog keeps, the oplog rolls
     * past the position the stream will reopen from, and the reads go on failing for {@value #AFTER_THE_ROLL_MS}
     * ms more. When the stream reopens, the server answers 286 for real.
     *
     * @return how many reads failed, and the documents deleted at the source but still at the destination when
     *         the oplog rolled
     */
    private static Outage loseTheStreamsHistory(FaultInjectingBackend backend, Pipeline p, SourceWriter writer, MongoFixture dest) {
        int injectedBefore = backend.injected();
        backend.failNext(p.db, Set.of("getMore", "aggregate"), MongoErrors.SHUTDOWN_IN_PROGRESS, "ShutdownInProgress",
                Integer.MAX_VALUE);
        long[] writesAtTheOutage = {-1};
        Waits.until(Duration.ofMinutes(2), Duration.ofMillis(20), () -> {
            if (writesAtTheOutage[0] < 0 && backend.injected() > injectedBefore) {
                writesAtTheOutage[0] = writer.writes(); // the stream's position is at most here now
            }
            return writesAtTheOutage[0] >= 0 && writer.writes() - writesAtTheOutage[0] >= 4L * GAP_ENTRIES_KEPT;
        }, Boolean::booleanValue, x -> "the outage did not happen within 2 minutes (" + (backend.injected() - injectedBefore)
                + " reads failed, " + (writesAtTheOutage[0] < 0 ? 0 : writer.writes() - writesAtTheOutage[0]) + " writes since)");
        rollTheOplogPast(backend, GAP_ENTRIES_KEPT);
        int notDeleted = p.differences(dest.client(), writer.expected()).notDeleted();
        Waits.pause(Duration.ofMillis(AFTER_THE_ROLL_MS), "the outage goes on after the roll (its length)");
        backend.disarm();
        return new Outage(backend.injected() - injectedBefore, notDeleted);
    }

    /** The source's log lines saying it checked a 286 on this pipeline's stream and found the history still there. */
    private static long unfounded286(TestStack stack, Pipeline p) {
        return workerLog(stack, lines -> lines.filter(l -> l.contains("Change stream of " + p.db + ":")
                && l.contains("every collection's position is still in the oplog")).count());
    }

    /** What the sink says it swept on this pipeline's topic (its "swept N documents" log lines). */
    private static long sweptBySink(TestStack stack, Pipeline p) {
        Pattern swept = Pattern.compile("complete on " + Pattern.quote(p.topic) + "-\\d+: swept (\\d+) documents");
        return workerLog(stack, lines -> lines.map(swept::matcher).filter(Matcher::find).mapToLong(m -> Long.parseLong(m.group(1))).sum());
    }

    private static long workerLog(TestStack stack, ToLongFunction<Stream<String>> count) {
        Path log = stack.workDir().resolve("worker-0").resolve("worker-0.log");
        try (Stream<String> lines = Files.lines(log)) {
            return count.applyAsLong(lines);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the worker's log " + log, e);
        }
    }

    private static void awaitStopped(TestStack stack, String connector) {
        Waits.until(Duration.ofSeconds(60), Duration.ofMillis(200), () -> stack.rest().statusOrEmpty(connector),
                status -> "STOPPED".equals(status.path("connector").path("state").asText()),
                status -> connector + " not STOPPED within 60 s: " + status);
    }

    /** Arms the fault and waits until the connector has run into all of it, then gives it time to reopen. */
    private static void injectAndAwait(FaultInjectingBackend backend, Pipeline p, Injection i, int times, Set<String> commands) {
        int before = backend.injected();
        backend.failNext(p.db, commands, i.code(), i.name(), times);
        Waits.until(Duration.ofMinutes(2), Duration.ofMillis(100), backend::spent, Boolean::booleanValue,
                x -> "the connector did not read again after " + i.name() + " within 2 minutes ("
                        + (backend.injected() - before) + " of " + times + " delivered)");
        System.out.printf("FAULTS errors: %d %s delivered %d time(s)%n", i.code(), i.name(), backend.injected() - before);
        // reopened: a read of the pipeline's database goes through again after the last injected error
        long through = backend.readsLetThrough(p.db);
        Waits.until("a read of " + p.db + " let through after " + i.name() + " (the connector reopened; more than " + through + ")",
                Duration.ofMinutes(2), Duration.ofMillis(100), () -> backend.readsLetThrough(p.db), n -> n > through);
    }

    /**
     * The history_lost notices since {@code before}, once there is at least one (the policy announces itself). Each
     * poll reads what the control topic holds at that moment; the final counts ({@link #historyLostNotices}) wait for
     * a quiet topic.
     */
    private static long awaitHistoryLostNotices(TestStack stack, Pipeline p, long before) {
        long[] now = {0};
        try {
            Waits.await("a history_lost notice", Duration.ofSeconds(60), Duration.ofMillis(500))
                    .until(() -> (now[0] = historyLost(TopicReader.readToEnd(stack.bootstrapServers(), controlTopic(p),
                            Duration.ofSeconds(2))) - before) != 0);
        } catch (ConditionTimeoutException e) {
            // none: the caller's assertion on the count says so
        }
        return now[0];
    }

    /** The history_lost notices once the control topic is quiet (2 s without a new record). */
    private static long historyLostNotices(TestStack stack, Pipeline p) {
        return historyLost(TopicReader.readAll(stack.bootstrapServers(), controlTopic(p), Duration.ofSeconds(2)));
    }

    private static String controlTopic(Pipeline p) {
        return "fault-" + p.name + ".control";
    }

    private static long historyLost(List<ConsumerRecord<byte[], byte[]>> control) {
        return control.stream().filter(r -> r.value() != null
                && new String(r.value(), StandardCharsets.ISO_8859_1).contains("history_lost")).count();
    }
}
