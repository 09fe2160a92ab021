package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import dev.tideline.health.SourceTaskMetrics;
import dev.tideline.health.TaskIdentity;
import dev.tideline.source.capture.CopyPlan;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A task's part in split copies, with Connect's committed offsets as the only channel: a task starts
 * the chunks an owner's committed plan gives it (once, resuming a chunk after its committed id, never
 * one committed done), and an owner ends its copy (complete marker, then streaming) only once every
 * chunk's done offset is committed.
 */
class SplitCopiesTest {
    private static final int TASKS = 3;
    private static final BsonTimestamp START = new BsonTimestamp(1_800_000_000, 4);
    private static final CopyPlan PLAN = new CopyPlan(START, List.of(new BsonInt32(1_000), new BsonInt32(2_000)));

    /** Committed offsets by partition, as the worker would hand them to the task. */
    private final Map<Map<String, Object>, Map<String, Object>> committed = new HashMap<>();
    private final List<String> submitted = new ArrayList<>();
    private final List<SourceOffset> submittedFrom = new ArrayList<>();
    private final List<Namespace> copied = new ArrayList<>();
    private final RecordQueue queue = new RecordQueue(100);
    private final SourceTaskMetrics metrics = new SourceTaskMetrics(new TaskIdentity("split-copies-test", 0));
    private final Map<Namespace, CollectionCapture> captured = new HashMap<>();

    @AfterEach
    void close() {
        metrics.close();
    }

    private static Namespace ownedBy(int task) {
        return ownedBy(task, 0);
    }

    /** The {@code nth} (from 0) collection named c0, c1 ... that task {@code task} captures. */
    private static Namespace ownedBy(int task, int nth) {
        int found = 0;
        for (int i = 0; ; i++) {
            Namespace ns = new Namespace("shop", "c" + i);
            if (new TaskOwnership(0, TASKS).ownerOf(ns) == task && found++ == nth) {
                return ns;
            }
        }
    }

    private CollectionCapture capture(Namespace ns, Map<String, Object> partition, SourceOffset stored) {
        RecordFactory records = new RecordFactory(ns, "t." + ns.fullName(), "t.heartbeats", "t.control", ValueFormat.BSON, "", false, "p");
        return new CollectionCapture(ns, partition == null ? records : records.forChunk(partition), new RecordState(RepairProgress.NONE),
                new CaptureMetrics(metrics.collection(ns.fullName() + (partition == null ? "" : "#" + partition.get("chunk")), ns.db())),
                null, stored, null); // no wiring: these captures are only copied and published, never streamed or parked
    }

    private SplitCopies task(int index, List<Namespace> listed) {
        OffsetStorageReader reader = new OffsetStorageReader() {
            @Override
            public <T> Map<String, Object> offset(Map<String, T> partition) {
                return committed.get(partition);
            }

            @Override
            public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
                Map<Map<String, T>, Map<String, Object>> out = new HashMap<>();
                partitions.forEach(p -> out.put(p, committed.get(p)));
                return out;
            }
        };
        SplitCopies.Capture capture = new SplitCopies.Capture() {
            @Override
            public List<Namespace> listed() {
                return listed;
            }

            @Override
            public CollectionCapture owned(Namespace ns) {
                return captured.get(ns);
            }

            @Override
            public CollectionCapture chunkCapture(Namespace ns, Map<String, Object> partition, SourceOffset stored) {
                return capture(ns, partition, stored);
            }

            @Override
            public void copied(CollectionCapture c, CopyPlan plan) {
                copied.add(c.ns());
            }
        };
        SplitCopies.ChunkRunner runner = (c, plan, chunk, from, done) -> {
            submitted.add(c.ns().coll() + "#" + chunk.index());
            submittedFrom.add(from);
        };
        return new SplitCopies(new TaskOwnership(index, TASKS), reader, runner, new Publisher(queue), capture, c -> 2);
    }

    private void commit(Map<String, Object> partition, SourceOffset offset) {
        committed.put(partition, offset.toMap());
    }

    @Test
    void aTaskStartsTheChunkAnOwnersCommittedPlanGivesItOnce() throws InterruptedException {
        Namespace ns = ownedBy(0);
        Namespace streaming = ownedBy(0, 1);
        commit(SourcePartition.of(streaming), SourceOffset.streamFrom(START)); // a copy its owner has finished
        SplitCopies task1 = task(1, List.of(ns, streaming));

        task1.poll();
        assertThat(submitted).as("no plan committed yet").isEmpty();

        commit(SourcePartition.of(ns), SourceOffset.backfillSplit(PLAN));
        task1.poll();
        task1.poll();
        assertThat(submitted).as("chunk 1 goes to the task after the owner, once").containsExactly(ns.coll() + "#1");
        assertThat(submittedFrom).containsExactly((SourceOffset) null);
    }

    @Test
    void aRestartedTaskResumesItsChunkAfterTheCommittedIdAndLeavesADoneChunkAlone() throws InterruptedException {
        Namespace ns = ownedBy(0);
        commit(SourcePartition.of(ns), SourceOffset.backfillSplit(PLAN));
        commit(SourcePartition.chunk(ns, START, 1), SourceOffset.backfill(START, new BsonInt32(1_500)));
        commit(SourcePartition.chunk(ns, START, 2), SourceOffset.chunkDone(START, new BsonInt32(2_999)));

        task(1, List.of(ns)).poll();
        task(2, List.of(ns)).poll();

        assertThat(submitted).containsExactly(ns.coll() + "#1");
        assertThat(submittedFrom.get(0).lastId()).isEqualTo(new BsonInt32(1_500));
    }

    @Test
    void theOwnerCopiesItsChunkAndEndsTheCopyOnlyOnceEveryChunkIsCommittedDone() throws InterruptedException {
        Namespace ns = ownedBy(0);
        CollectionCapture c = capture(ns, null, null);
        c.copyStarted();
        captured.put(ns, c);
        SplitCopies owner = task(0, List.of(ns));

        owner.ownerSplit(c, PLAN);
        assertThat(submitted).containsExactly(ns.coll() + "#0");

        commit(SourcePartition.chunk(ns, START, 0), SourceOffset.chunkDone(START, new BsonInt32(999)));
        commit(SourcePartition.chunk(ns, START, 2), SourceOffset.chunkDone(START, new BsonInt32(2_999)));
        commit(SourcePartition.chunk(ns, START, 1), SourceOffset.backfill(START, new BsonInt32(1_998)));
        owner.poll();
        assertThat(queue.poll(10, 100)).as("chunk 1 is not committed done: no complete marker yet").isNull();
        assertThat(copied).isEmpty();

        commit(SourcePartition.chunk(ns, START, 1), SourceOffset.chunkDone(START, new BsonInt32(1_999)));
        owner.poll();
        List<SourceRecord> out = queue.poll(1_000, 100);
        assertThat(out).hasSize(3); // the complete marker on both partitions, then the switch to streaming
        assertThat(out.subList(0, 2)).allSatisfy(r -> {
            assertThat(header(r, EventHeaders.MARKER)).isEqualTo("resnapshot.complete");
            assertThat(r.sourcePartition()).isEqualTo(SourcePartition.of(ns));
        });
        assertThat(out.stream().map(SourceRecord::kafkaPartition).limit(2)).containsExactly(0, 1);
        assertThat(SourceOffset.fromMap(out.get(2).sourceOffset())).isEqualTo(SourceOffset.streamAfterCopy(START));
        assertThat(copied).containsExactly(ns);

        owner.poll();
        assertThat(queue.poll(10, 100)).as("ended once").isNull();
        assertThat(copied).hasSize(1);
    }

    private static String header(SourceRecord r, String name) {
        var h = r.headers().lastWithName(name);
        return h == null ? null : String.valueOf(h.value());
    }
}
