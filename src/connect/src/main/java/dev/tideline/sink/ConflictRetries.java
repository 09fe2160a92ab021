package dev.tideline.sink;

import dev.tideline.sink.write.RecordFailure;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Holds the records whose write a unique index refused (duplicate key) and retries them, for a bounded
 * time, before they are reported (dead letter queue, or the task stops). Pure: the task passes the clock.
 *
 * <p>Why: records of different documents travel on different partitions. When two documents swap a
 * unique value at the source (A: x→y, then B: z→x), B's change may reach the destination before A's,
 * and the destination refuses it with 11000 though nothing is wrong: once A's change lands, B's write
 * succeeds. Reporting B at once would lose it from the destination.
 *
 * <p>How, in order: a held record is applied again at the head of every later batch (so a later change
 * of the same document in that batch supersedes it, as the planner orders changes by arrival), and the
 * task's committed offsets never pass a held record ({@link #holdBack}): after a crash or a rebalance its
 * partition is read again from it. Re-delivering the whole batch instead (a retriable exception) would
 * wait for a record that Connect does not poll meanwhile whenever one task reads both partitions.
 */
final class ConflictRetries {
    /** A held record: when it was first refused and how often since. */
    private record Held(SinkRecord record, long firstRefusedMs, int attempts) {
    }

    private final long timeoutMs;
    /** Held records in arrival order, by identity (a record's hashCode walks its whole value). */
    private final Map<SinkRecord, Held> held = new IdentityHashMap<>();
    private final List<SinkRecord> order = new ArrayList<>();

    /** @param timeoutMs how long a refused record is retried; 0: reported at once */
    ConflictRetries(long timeoutMs) {
        this.timeoutMs = timeoutMs;
    }

    /** The batch to apply: the held records first, in the order they arrived, then {@code records} (none twice). */
    List<SinkRecord> withHeld(Collection<SinkRecord> records) {
        if (order.isEmpty()) {
            return records instanceof List<SinkRecord> list ? list : new ArrayList<>(records);
        }
        Set<SinkRecord> fresh = Collections.newSetFromMap(new IdentityHashMap<>());
        fresh.addAll(records);
        List<SinkRecord> batch = new ArrayList<>(order.size() + records.size());
        for (SinkRecord r : order) {
            if (!fresh.contains(r)) {
                batch.add(r);
            }
        }
        batch.addAll(records);
        return batch;
    }

    /**
     * Settles a batch's failures: a unique-index conflict is held (again) until it has been refused for
     * {@code timeoutMs}; held records that no longer fail (written, superseded, stale) are let go.
     *
     * @return the failures to report now, each held one with how long it was retried
     */
    List<RecordFailure> settle(List<RecordFailure> failures, long nowMs) {
        Map<SinkRecord, Held> still = new IdentityHashMap<>();
        List<RecordFailure> report = new ArrayList<>();
        for (RecordFailure f : failures) {
            Held before = held.get(f.record());
            if (!f.uniqueConflict()) {
                report.add(before == null ? f : f.withReason(f.reason() + " (after " + before.attempts() + " retries)"));
                continue;
            }
            long first = before == null ? nowMs : before.firstRefusedMs();
            int attempts = before == null ? 0 : before.attempts() + 1;
            if (nowMs - first >= timeoutMs) {
                report.add(f.withReason(f.reason() + (attempts == 0 ? "" : "; still refused after " + attempts + " retries over "
                        + (nowMs - first) + " ms (duplicate.key.retry.ms=" + timeoutMs + "): the conflicting value was not "
                        + "freed by a later change")));
            } else {
                still.put(f.record(), new Held(f.record(), first, attempts));
            }
        }
        List<SinkRecord> keptOrder = new ArrayList<>(still.size());
        for (SinkRecord r : order) { // earlier held records keep their place, newly held ones follow in batch order
            if (still.containsKey(r)) {
                keptOrder.add(r);
            }
        }
        for (RecordFailure f : failures) {
            if (still.containsKey(f.record()) && !held.containsKey(f.record())) {
                keptOrder.add(f.record());
            }
        }
        held.clear();
        held.putAll(still);
        order.clear();
        order.addAll(keptOrder);
        return report;
    }

    /**
     * The offsets that may be committed: for a partition with held records, no further than the first of
     * them (the offset committed is the next one to read), so that nothing held is lost to a crash.
     */
    Map<TopicPartition, OffsetAndMetadata> holdBack(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (order.isEmpty()) {
            return offsets;
        }
        Map<TopicPartition, Long> firstHeld = new HashMap<>();
        for (SinkRecord r : order) {
            firstHeld.merge(new TopicPartition(r.topic(), r.kafkaPartition()), r.kafkaOffset(), Math::min);
        }
        Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>(offsets);
        firstHeld.forEach((tp, offset) -> out.computeIfPresent(tp, (k, committed) ->
                committed.offset() > offset ? new OffsetAndMetadata(offset, committed.metadata()) : committed));
        return out;
    }

    /** Lets go of the held records of partitions this task no longer owns: their new owner reads them again. */
    void forget(Collection<TopicPartition> partitions) {
        Set<TopicPartition> gone = Set.copyOf(partitions);
        order.removeIf(r -> {
            boolean drop = gone.contains(new TopicPartition(r.topic(), r.kafkaPartition()));
            if (drop) {
                held.remove(r);
            }
            return drop;
        });
    }

    int size() {
        return order.size();
    }
}
