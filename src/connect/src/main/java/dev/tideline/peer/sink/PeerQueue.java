package dev.tideline.peer.sink;

import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.Namespace;
import dev.tideline.peer.RoundTripLag;
import dev.tideline.peer.TenantScope;
import dev.tideline.sink.front.SinkFrontEnd;
import dev.tideline.sink.write.RecordFailure;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;

/**
 * The peer records waiting, queued per document in arrival order: which records are let in (those in the link's
 * scope; heartbeats coming back are noted as round trips), and what the task reports and commits from what waits.
 * {@link PeerApplier} drains it.
 */
final class PeerQueue {
    private final String self;
    private final PeerRecordReader reader;
    private final PeerCounters counters;
    private final TenantScope scope;
    private final Namespace heartbeats;
    private final RoundTripLag roundTrips = new RoundTripLag();
    private final PeerMarkers markers;
    private final Map<PeerChange.DocKey, Deque<PeerChange>> pending = new LinkedHashMap<>();
    private final Set<TopicPartition> peerPartitions = new HashSet<>();
    private long lastRecordTimestamp = -1;
    /** the oldest record (by its timestamp: when the change was made) of the last records received, and when they came */
    private long lastReceivedOldest = -1;
    private long lastReceivedAt = -1;

    /** @param heartbeats the namespace of the link's heartbeat documents, null when there are none */
    PeerQueue(String self, PeerRecordReader reader, PeerCounters counters, TenantScope scope, Namespace heartbeats) {
        this.self = self;
        this.reader = reader;
        this.counters = counters;
        this.scope = scope;
        this.heartbeats = heartbeats;
        this.markers = new PeerMarkers(self);
    }

    /**
     * Queues the records in scope (writes of tenants outside the link's scope are left out and counted);
     * {@link PeerApplier#drain} moves them. A record that cannot be read, that the front end refuses or that does not
     * authenticate is not queued: it is counted and returned, for the dead letter queue, so it never holds the link.
     *
     * @return the records refused, with their reasons
     */
    List<RecordFailure> add(Collection<SinkRecord> records) {
        List<RecordFailure> refused = new ArrayList<>();
        long oldest = Long.MAX_VALUE;
        for (SinkRecord r : records) {
            counters.record();
            try {
                var change = reader.read(r);
                if (change.isPresent()) {
                    queue(change.get());
                } else {
                    reader.marker(r).ifPresent(m -> markers.received(m.routed(), m.cluster(),
                            r.kafkaPartition() == null ? 0 : r.kafkaPartition()));
                }
            } catch (MalformedRecordException e) { // refused and unauthentic records too (subclasses)
                refused.add(refuse(r, e));
            } catch (RuntimeException | StackOverflowError e) {
                // whatever a record makes a reader throw is about that record: it must never stop the task
                refused.add(refuse(r, new MalformedRecordException("it could not be read (" + e.getClass().getSimpleName()
                        + ": " + e.getMessage() + ")", e)));
            }
            if (r.timestamp() != null) {
                lastRecordTimestamp = Math.max(lastRecordTimestamp, r.timestamp());
                oldest = Math.min(oldest, r.timestamp());
            }
        }
        if (oldest != Long.MAX_VALUE) {
            lastReceivedOldest = oldest;
            lastReceivedAt = System.currentTimeMillis();
        }
        return refused;
    }

    private RecordFailure refuse(SinkRecord r, MalformedRecordException e) {
        RecordFailure failure = SinkFrontEnd.failure(r, e);
        counters.refused(PeerCounters.Refusal.of(e), failure.message());
        return failure;
    }

    private void queue(PeerChange c) {
        markers.changed(c);
        if (!c.incoming.fromCluster().equals(self) && c.record != null && c.record.kafkaPartition() != null) {
            peerPartitions.add(new TopicPartition(c.record.topic(), c.record.kafkaPartition()));
        }
        boolean heartbeat = c.destination.equals(heartbeats);
        if (heartbeat) {
            noteHeartbeat(c);
        }
        // this cluster's own records always pass: they stamp its local writes (or are echoes)
        if (heartbeat || c.incoming.origin().equals(self) || scope.carries(c.tenant, c.incoming.isDelete())) {
            pending.computeIfAbsent(c.key(), k -> new ArrayDeque<>()).add(c);
        } else {
            counters.outOfScope();
        }
    }

    /** Our own heartbeat, back through a peer: the link's round trip. */
    private void noteHeartbeat(PeerChange c) {
        if (c.document != null && c.incoming.origin().equals(self) && !c.incoming.fromCluster().equals(self)
                && c.id.equals(new BsonString(self)) && c.document.isDateTime("at")) {
            roundTrips.echoed(c.incoming.fromCluster(), c.document.getDateTime("at").getValue(), System.currentTimeMillis());
        }
    }

    /** The drops of peers this sink received and did not apply. */
    PeerMarkers markers() {
        return markers;
    }

    RoundTripLag roundTrips() {
        return roundTrips;
    }

    /** The documents with records queued, per namespace, in the order they were first queued. */
    Map<Namespace, List<PeerChange.DocKey>> documentsByNamespace() {
        Map<Namespace, List<PeerChange.DocKey>> byNs = new LinkedHashMap<>();
        for (PeerChange.DocKey k : pending.keySet()) {
            byNs.computeIfAbsent(k.ns(), n -> new ArrayList<>()).add(k);
        }
        return byNs;
    }

    /**
     * The earliest cluster time of this cluster's own records queued for {@code ns} (records this cluster's source
     * emitted of its own changes), null when none: where this cluster's changes still to be reached start.
     */
    BsonTimestamp earliestOwnChange(Namespace ns) {
        BsonTimestamp earliest = null;
        for (Map.Entry<PeerChange.DocKey, Deque<PeerChange>> e : pending.entrySet()) {
            if (!e.getKey().ns().equals(ns)) {
                continue;
            }
            for (PeerChange c : e.getValue()) {
                if (c.sourceTime != null && c.incoming.fromCluster().equals(self) && c.incoming.origin().equals(self)
                        && (earliest == null || c.sourceTime.compareTo(earliest) < 0)) {
                    earliest = c.sourceTime;
                }
            }
        }
        return earliest;
    }

    /** The records queued for a document, in arrival order (null when none). */
    Deque<PeerChange> of(PeerChange.DocKey key) {
        return pending.get(key);
    }

    /** Leaves exactly {@code keep} queued for the document, in that order (nothing when it is empty). */
    void requeue(PeerChange.DocKey key, List<PeerChange> keep) {
        if (keep.isEmpty()) {
            pending.remove(key);
        } else {
            pending.put(key, new ArrayDeque<>(keep));
        }
    }

    /**
     * Documents with a record the destination refuses, or held since before {@code heldBefore} (epoch ms), and why
     * (the first such record of each).
     */
    List<String> heldReasons(long heldBefore) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<PeerChange.DocKey, Deque<PeerChange>> e : pending.entrySet()) {
            for (PeerChange c : e.getValue()) {
                if (c.heldReason != null && (c.refused || c.heldSince <= heldBefore)) {
                    out.add(e.getKey().ns() + " " + new BsonDocument("_id", e.getKey().id()).toJson() + ": " + c.heldReason);
                    break;
                }
            }
        }
        return out;
    }

    /** Documents whose first waiting record is held (refused by the destination, or waiting for this cluster's record). */
    int heldDocuments() {
        int held = 0;
        for (Deque<PeerChange> q : pending.values()) {
            if (q.stream().anyMatch(c -> c.heldReason != null)) {
                held++;
            }
        }
        return held;
    }

    int queued() {
        return pending.values().stream().mapToInt(Deque::size).sum();
    }

    long lastRecordTimestamp() {
        return lastRecordTimestamp;
    }

    /**
     * How far behind the changes this sink was last given are (ms from when the oldest of them was made to when they
     * arrived), when they arrived within {@code withinMs} of {@code now}; 0 otherwise. A sink catching up (after a
     * restart, or behind a lagging source) is given old changes, whatever the heartbeats of other collections say.
     */
    long behindMs(long now, long withinMs) {
        return lastReceivedAt >= 0 && now - lastReceivedAt <= withinMs ? Math.max(0, lastReceivedAt - lastReceivedOldest) : 0;
    }

    /**
     * The partitions that carried records emitted by a peer's source (not this cluster's): what flow control may pause.
     * This cluster's own records are what releases the records that wait (they stamp local writes, record local
     * deletes, release own records waiting for later ones), so their partitions are never paused.
     */
    Set<TopicPartition> peerPartitions() {
        return Collections.unmodifiableSet(peerPartitions);
    }

    /** The lowest offset still queued per partition: offsets are committed only below it. */
    Map<TopicPartition, Long> lowestQueuedOffsets() {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (Deque<PeerChange> q : pending.values()) {
            for (PeerChange c : q) {
                TopicPartition tp = new TopicPartition(c.record.topic(), c.record.kafkaPartition());
                out.merge(tp, c.record.kafkaOffset(), Math::min);
            }
        }
        return out;
    }
}
