package dev.tideline.source;

import dev.tideline.event.Namespace;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.log.LogText;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CopyPlan;
import dev.tideline.source.capture.InvalidOffsetException;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This task's part in copies split across tasks ({@link CopyPlan}), coordinated through Connect's own
 * offsets only: no task talks to another.
 *
 * <ul>
 *   <li>A collection's owner commits the plan with the copy's begin marker ({@link SourceOffset#backfillSplit}).
 *       Connect commits an offset only once its record is acknowledged, so a task that reads the plan knows
 *       the begin marker is on every partition before any chunk's copy.</li>
 *   <li>Every task reads its collections' owners' offsets every {@value #POLL_MS} ms and copies the chunks
 *       the plan gives it, each under its own chunk partition: a restart resumes a chunk after its last
 *       committed {@code _id}.</li>
 *   <li>The owner ends the copy (complete marker, then streaming from the plan's start) once every chunk's
 *       done offset is committed, that is once every chunk's records are acknowledged: the marker follows
 *       every copy on every partition, so a sink sweeps only what no chunk found.</li>
 * </ul>
 * Offsets are committed every {@code offset.flush.interval.ms} of the worker, so a split copy starts its
 * other tasks and ends up to that long later than the chunks themselves.
 */
final class SplitCopies {
    private static final Logger log = LoggerFactory.getLogger(SplitCopies.class);
    static final long POLL_MS = 2_000;
    private static final long WAITING_LOG_MS = 30_000;

    /** What this class needs of its task. */
    interface Capture {
        /** The collections the task's last listing found (all of them, not only its own). */
        List<Namespace> listed();

        /** The collection this task owns and captures, or null. */
        CollectionCapture owned(Namespace ns);

        /** A capture that publishes a chunk of {@code ns} under {@code partition}, its position {@code stored}. */
        CollectionCapture chunkCapture(Namespace ns, Map<String, Object> partition, SourceOffset stored);

        /** The owner's copy is over: stream from its start. */
        void copied(CollectionCapture c, CopyPlan plan);
    }

    /** Where chunk copies run: the task's copy pool ({@link CollectionCopies#submitChunk}). */
    interface ChunkRunner {
        /** @param from the chunk's stored position, or null to start it; {@code done} runs once its last record is handed over */
        void submit(CollectionCapture chunkCapture, CopyPlan plan, CopyPlan.Chunk chunk, SourceOffset from, Runnable done);
    }

    private record ChunkKey(Namespace ns, long copyAt, int index) {
    }

    private final TaskOwnership ownership;
    private final OffsetStorageReader offsets;
    private final ChunkRunner copies;
    private final Publisher publisher;
    private final Capture capture;
    private final ToIntFunction<CollectionCapture> markerPartitions;
    /** chunks this task copies or found copied, so none is started twice */
    private final Set<ChunkKey> taken = ConcurrentHashMap.newKeySet();
    /** the split copies of this task's collections, waiting for their chunks */
    private final Map<Namespace, CopyPlan> owned = new ConcurrentHashMap<>();
    private long lastWaitingLog;

    SplitCopies(TaskOwnership ownership, OffsetStorageReader offsets, ChunkRunner copies, Publisher publisher, Capture capture,
                ToIntFunction<CollectionCapture> markerPartitions) {
        this.ownership = ownership;
        this.offsets = offsets;
        this.copies = copies;
        this.publisher = publisher;
        this.capture = capture;
        this.markerPartitions = markerPartitions;
    }

    /** The owner's copy of {@code c} is split (new, or after a restart): copy its own chunks and wait for all. */
    void ownerSplit(CollectionCapture c, CopyPlan plan) {
        owned.put(c.ns(), plan);
        log.info("Copy of {} split in {} chunks: this task ({} of {}) copies {}, then ends the copy once every chunk is committed",
                LogText.escape(c.ns()), plan.chunks(), ownership.index(), ownership.count(),
                plan.chunksOf(ownership.index(), ownership.index(), ownership.count()).stream().map(CopyPlan.Chunk::index).toList());
        startChunks(c.ns(), plan, ownership.index());
    }

    /** One round, on the coordinator thread: start the chunks other tasks' plans give this task, end the owned copies that are done. */
    void poll() throws InterruptedException {
        List<Namespace> others = new ArrayList<>();
        for (Namespace ns : capture.listed()) {
            if (!ownership.owns(ns)) {
                others.add(ns);
            }
        }
        if (!others.isEmpty()) {
            Map<Map<String, Object>, Map<String, Object>> stored = read(others.stream().map(SourcePartition::of).toList());
            for (Namespace ns : others) {
                Map<String, Object> offset = stored.get(SourcePartition.of(ns));
                CopyPlan plan = planOf(offset);
                if (plan != null) {
                    startChunks(ns, plan, ownership.ownerOf(ns));
                }
            }
        }
        for (Map.Entry<Namespace, CopyPlan> e : owned.entrySet()) {
            endIfCopied(e.getKey(), e.getValue());
        }
    }

    private static CopyPlan planOf(Map<String, Object> offset) {
        if (offset == null) {
            return null;
        }
        try {
            SourceOffset o = SourceOffset.fromMap(offset);
            return o.phase() == SourceOffset.Phase.BACKFILL ? o.split() : null;
        } catch (InvalidOffsetException e) {
            return null; // its owner parks it and says why
        }
    }

    private void startChunks(Namespace ns, CopyPlan plan, int ownerTask) {
        List<CopyPlan.Chunk> mine = new ArrayList<>();
        for (CopyPlan.Chunk chunk : plan.chunksOf(ownership.index(), ownerTask, ownership.count())) {
            if (taken.add(new ChunkKey(ns, plan.streamStart().getValue(), chunk.index()))) {
                mine.add(chunk);
            }
        }
        if (mine.isEmpty()) {
            return;
        }
        List<Map<String, Object>> partitions = mine.stream().map(ch -> SourcePartition.chunk(ns, plan.streamStart(), ch.index())).toList();
        Map<Map<String, Object>, Map<String, Object>> stored = read(partitions);
        for (int i = 0; i < mine.size(); i++) {
            CopyPlan.Chunk chunk = mine.get(i);
            Map<String, Object> partition = partitions.get(i);
            SourceOffset from = chunkOffset(ns, chunk, stored.get(partition));
            if (from != null && from.isChunkDone()) {
                continue;
            }
            CollectionCapture c = capture.chunkCapture(ns, partition, from);
            log.info("Task {} of {} copies chunk {} of {} of {}{}", ownership.index(), ownership.count(), chunk.index(), plan.chunks(),
                    LogText.escape(ns), LogText.escape(from == null || from.lastId() == null ? "" : ", after _id " + from.lastId()));
            copies.submit(c, plan, chunk, from, () -> {
                log.info("Chunk {} of {} of {} copied by task {}", chunk.index(), plan.chunks(), LogText.escape(ns), ownership.index());
                if (capture.owned(ns) == null) {
                    c.metrics().chunksCopied();
                }
            });
        }
    }

    private static SourceOffset chunkOffset(Namespace ns, CopyPlan.Chunk chunk, Map<String, Object> stored) {
        if (stored == null) {
            return null;
        }
        try {
            SourceOffset o = SourceOffset.fromMap(stored);
            return o.phase() == SourceOffset.Phase.BACKFILL ? o : null;
        } catch (InvalidOffsetException e) {
            log.warn("The stored offset of chunk {} of the copy of {} cannot be used ({}): the chunk is copied from its start",
                    chunk.index(), LogText.escape(ns), LogText.message(e.getMessage()));
            return null;
        }
    }

    private void endIfCopied(Namespace ns, CopyPlan plan) throws InterruptedException {
        CollectionCapture c = capture.owned(ns);
        if (c == null || c.state() != CollectionCapture.State.COPYING) {
            owned.remove(ns);
            return;
        }
        List<Map<String, Object>> partitions = new ArrayList<>();
        for (int i = 0; i < plan.chunks(); i++) {
            partitions.add(SourcePartition.chunk(ns, plan.streamStart(), i));
        }
        Map<Map<String, Object>, Map<String, Object>> stored = read(partitions);
        List<Integer> waiting = new ArrayList<>();
        for (int i = 0; i < partitions.size(); i++) {
            SourceOffset o = chunkOffset(ns, plan.chunk(i), stored.get(partitions.get(i)));
            if (o == null || !o.isChunkDone()) {
                waiting.add(i);
            }
        }
        if (!waiting.isEmpty()) {
            long now = System.currentTimeMillis();
            if (now - lastWaitingLog >= WAITING_LOG_MS) {
                lastWaitingLog = now;
                log.info("Copy of {}: waiting for chunk(s) {} (copied by task(s) {}) to be committed", LogText.escape(ns), waiting,
                        waiting.stream().map(i -> CopyPlan.taskOf(i, ownership.index(), ownership.count())).distinct().toList());
            }
            return;
        }
        // after every chunk's copies on every partition: the sink sweeps what no chunk found. A restart between
        // the two items sends the marker again (the offset still holds the plan), which the sink applies idempotently
        publisher.publish(c, List.of(
                new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, ns, plan.streamStart(),
                        markerPartitions.applyAsInt(c)), SourceOffset.backfillSplit(plan)),
                new Captured.Heartbeat(SourceOffset.streamAfterCopy(plan.streamStart()))));
        owned.remove(ns);
        log.info("Copy of {} done: all {} chunks committed; streaming from {}", LogText.escape(ns), plan.chunks(), plan.streamStart());
        capture.copied(c, plan);
    }

    private Map<Map<String, Object>, Map<String, Object>> read(List<Map<String, Object>> partitions) {
        Map<Map<String, Object>, Map<String, Object>> found = offsets.offsets(partitions);
        return found == null ? new HashMap<>() : found;
    }
}
