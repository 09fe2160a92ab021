package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.Waits;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.standin.MongoFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.junit.jupiter.api.Test;

/**
 * kill -9 of the worker in the middle of a copy split across three tasks (the plan committed, a chunk
 * partly copied), while inserts, updates and deletes go on: the restarted tasks go on with their
 * chunks after their committed ids, the owner ends the copy only once every chunk is committed, and
 * the destination ends equal to the source, document for document: LOST 0, not deleted 0. Runs with -Pfaults.
 */
class SplitCopyKillFaultIT {
    private static final int TASKS = 3;
    private static final int PRELOAD = 60_000;

    @Test
    void aSplitCopyKilledMidwayGoesOnWithItsChunksAndLosesNothing() {
        TestStack stack = TestStack.shared();
        long seed = FaultRounds.seed();
        Pipeline p = new Pipeline("splitkill");
        Namespace ns = new Namespace(p.db, Pipeline.COLLECTION);
        boolean killed = false;
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withOplog();
             SourceWriter writer = new SourceWriter(p.sourceCollection(source.client()), seed, 2)) {
            long started = System.nanoTime();
            writer.preload(PRELOAD);
            p.startSink(stack.rest(), dest.uri(), Map.of());
            writer.start();
            stack.rest().putConnector(p.sourceConnector(), p.sourceConfig(source.uri(), Map.of("tasks.max", Integer.toString(TASKS),
                    "backfill.split.min.documents", "1000", "batch.size", "100")));
            // the kill: once two tasks have committed some of their chunks, one of them partly (a chunk may be
            // done already, another not started: the restart meets every case)
            Map<Integer, SourceOffset> atKill = Waits.until(Duration.ofMinutes(3), Duration.ofMillis(50),
                    () -> chunks(stack.bootstrapServers(), p.sourceConnector()),
                    c -> c.size() >= 2 && c.values().stream().anyMatch(o -> o.lastId() != null && !o.isChunkDone()),
                    c -> "no split copy with a chunk partly committed; last chunks: " + c);
            stack.killWorker();
            killed = true;
            long writesAtKill = writer.writes();
            System.out.printf("FAULTS splitkill: kill -9 with the chunks committed up to %s after %d writes%n", describe(atKill), writesAtKill);
            Pipeline.awaitWrites(writer::writes, writesAtKill, Pipeline.WRITES_WHILE_DOWN, "the application goes on while the worker is down");
            stack.startWorker();
            killed = false;
            stack.rest().awaitRunning(p.sourceConnector(), TASKS, Duration.ofSeconds(120));
            stack.rest().awaitRunning(p.sinkConnector(), 1, Duration.ofSeconds(120));
            stack.rest().awaitSourceOffset(p.sourceConnector(), ns, o -> o.phase() == SourceOffset.Phase.STREAM,
                    "the switch to streaming after the split copy", Duration.ofMinutes(3));
            Map<Integer, SourceOffset> atEnd = chunks(stack.bootstrapServers(), p.sourceConnector());
            System.out.printf("FAULTS splitkill: after the restart the chunks ended at %s%n", describe(atEnd));
            assertThat(atEnd).hasSize(TASKS).allSatisfy((i, o) -> assertThat(o.isChunkDone()).as("chunk %d done", i).isTrue());

            Pipeline.Tally t = p.finish("kill -9 mid split copy", "1 x kill -9 mid copy (" + TASKS + " chunks; at the kill "
                    + describe(atKill) + ", seed " + seed + ")", stack.bootstrapServers(), IsolationLevel.READ_UNCOMMITTED, dest.client(), writer, started);
            Pipeline.Comparison byteForByte = p.compare(source.client(), dest.client());
            System.out.println("FAULTS splitkill: source vs destination: " + byteForByte);
            assertThat(t.lostInTopic()).as("lost in the topic").isZero();
            assertThat(t.lostAtDestination() + t.notDeleted()).as("lost or not deleted at the destination").isZero();
            assertThat(byteForByte.differing()).as("documents that differ").isEmpty();
            assertThat(byteForByte.destinationCount()).isEqualTo(byteForByte.sourceCount());
        } finally {
            if (killed) {
                stack.startWorker(); // the tests after this one use the same worker
            }
            p.deleteConnectors(stack.rest());
        }
    }

    /** The last committed offset of each chunk of the connector's split copies, by chunk index, from the offsets topic. */
    private static Map<Integer, SourceOffset> chunks(String bootstrap, String connector) {
        Map<Integer, SourceOffset> last = new LinkedHashMap<>();
        for (OffsetsTopic.Committed c : OffsetsTopic.committed(bootstrap, connector)) {
            int at = c.key().indexOf("\"chunk\":");
            if (at >= 0 && c.offset() != null) {
                int index = Integer.parseInt(c.key().substring(at + 8).replaceAll("[^0-9].*$", ""));
                last.put(index, SourceOffset.fromMap(c.offset()));
            }
        }
        return last;
    }

    private static String describe(Map<Integer, SourceOffset> chunks) {
        List<String> out = new ArrayList<>();
        chunks.forEach((i, o) -> out.add("chunk " + i + ": " + (o.isChunkDone() ? "done" : "_id " + o.lastId())));
        return out.toString();
    }
}
