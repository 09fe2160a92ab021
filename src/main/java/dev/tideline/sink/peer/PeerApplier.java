package dev.tideline.sink.peer;

import com.mongodb.MongoException;
import dev.tideline.event.Namespace;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.peer.DocState;
import dev.tideline.peer.LastWriterWins;
import dev.tideline.peer.LastWriterWins.Action;
import dev.tideline.peer.LastWriterWins.Decision;
import dev.tideline.peer.PeerLimits;
import dev.tideline.peer.RoundTripLag;
import dev.tideline.peer.TenantScope;
import dev.tideline.peer.Version;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * The peer write path. Records queue per document in arrival order; each round reads what the
 * destination holds for the queued documents, folds each document's queue through
 * {@link LastWriterWins}, and makes ONE conditional write per document from the state it read to the
 * state the fold ends in. A write whose condition fails (an application wrote meanwhile) is decided
 * again on a fresh read. A document stays queued while a record of it is HELD: a remote change
 * waiting for a local write's stamp, or a write the destination refused. Later remote changes of that
 * document wait behind it; this cluster's own records still pass (they are what un-holds).
 */
final class PeerApplier {
    private static final int ROUNDS = 3;
    static final int MEMORY = 100_000;

    private final String self;
    private final PeerRecordReader reader;
    private final PeerStore store;
    private final PeerCounters counters;
    private final TenantScope scope;
    private final Namespace heartbeats;
    private final LocalDeleteWatcher localDeletes;
    private final StampTrust trust;
    private final long maxAheadSeconds;
    private final LocalDeleteBarrier barrier = new LocalDeleteBarrier();
    private final RoundTripLag roundTrips = new RoundTripLag();
    private final Map<PeerChange.DocKey, Deque<PeerChange>> pending = new LinkedHashMap<>();
    private long lastRecordTimestamp = -1;
    /** the oldest record (by its timestamp: when the change was made) of the last records received, and when they came */
    private long lastReceivedOldest = -1;
    private long lastReceivedAt = -1;
    /**
     * Documents this task last left present (bounded): one found absent without a tombstone was deleted
     * locally, and the peer changes wait for this cluster's own record of that delete instead of
     * re-creating the document for a moment.
     */
    private final Map<PeerChange.DocKey, LeftPresent> lastLeftPresent = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<PeerChange.DocKey, LeftPresent> eldest) {
            return size() > MEMORY;
        }
    };

    /**
     * A document this task last left present, with that version (null: a local write not stamped yet) and, when this
     * task stamped that version on a local write, the cluster time of the own record that revealed it (else null).
     */
    private record LeftPresent(Version version, BsonTimestamp revealedAt) {
    }

    /**
     * @param heartbeats   the namespace of the link's heartbeat documents, null when there are none
     * @param localDeletes this cluster's deletes, read after each read of the documents (the barrier's input)
     */
    PeerApplier(String self, PeerRecordReader reader, PeerStore store, PeerCounters counters, TenantScope scope,
                Namespace heartbeats, LocalDeleteWatcher localDeletes, StampTrust trust, long maxAheadMs) {
        this.self = self;
        this.trust = trust;
        this.maxAheadSeconds = maxAheadMs / 1000;
        this.localDeletes = localDeletes;
        this.scope = scope;
        this.heartbeats = heartbeats;
        this.reader = reader;
        this.store = store;
        this.counters = counters;
    }

    /**
     * Queues the records in scope (malformed ones throw: in peer mode nothing is skipped; writes of tenants outside
     * the link's scope are left out and counted); {@link #drain} moves them.
     */
    void queue(Collection<SinkRecord> records) {
        long oldest = Long.MAX_VALUE;
        for (SinkRecord r : records) {
            counters.record();
            reader.read(r).ifPresent(c -> {
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
            });
            if (r.timestamp() != null) {
                lastRecordTimestamp = Math.max(lastRecordTimestamp, r.timestamp());
                oldest = Math.min(oldest, r.timestamp());
            }
        }
        if (oldest != Long.MAX_VALUE) {
            lastReceivedOldest = oldest;
            lastReceivedAt = System.currentTimeMillis();
        }
    }

    /** Our own heartbeat, back through a peer: the link's round trip. */
    private void noteHeartbeat(PeerChange c) {
        if (c.document != null && c.incoming.origin().equals(self) && !c.incoming.fromCluster().equals(self)
                && c.id.equals(new BsonString(self)) && c.document.isDateTime("at")) {
            roundTrips.echoed(c.incoming.fromCluster(), c.document.getDateTime("at").getValue(), System.currentTimeMillis());
        }
    }

    RoundTripLag roundTrips() {
        return roundTrips;
    }

    /** @throws MongoException on a failure that is not about one document (the queues stay as they are) */
    void drain() {
        Map<Namespace, List<PeerChange.DocKey>> byNs = new LinkedHashMap<>();
        for (PeerChange.DocKey k : pending.keySet()) {
            byNs.computeIfAbsent(k.ns(), n -> new ArrayList<>()).add(k);
        }
        for (Map.Entry<Namespace, List<PeerChange.DocKey>> e : byNs.entrySet()) {
            List<PeerChange.DocKey> keys = e.getValue();
            for (int round = 0; round < ROUNDS && !keys.isEmpty(); round++) {
                List<BsonValue> ids = keys.stream().map(PeerChange.DocKey::id).toList();
                Map<BsonValue, PeerStore.Held> held = store.read(e.getKey(), ids);
                // after the read: every local delete the read could have missed is known now
                localDeletes.catchUp(e.getKey(), barrier);
                List<PeerChange.DocKey> again = new ArrayList<>();
                for (PeerChange.DocKey k : keys) {
                    if (!settle(k, held.get(k.id()))) {
                        again.add(k);
                    }
                }
                keys = again;
            }
            for (PeerChange.DocKey k : keys) {
                // the document changed under every round (a busy writer): held, visible, retried on the next drain;
                // a write the destination refuses throws instead (see settle)
                pending.get(k).forEach(c -> hold(c, "the conditional write failed " + ROUNDS + " times in a row (the document "
                        + "changed under every attempt); retried", false, Action.HOLD));
            }
        }
    }

    private record Step(PeerChange change, Decision decision) {
    }

    /** @return false when the destination changed under the decision: read again */
    private boolean settle(PeerChange.DocKey key, PeerStore.Held held) {
        Deque<PeerChange> queue = pending.get(key);
        BsonDocument current = held.document();
        DocState start = current != null ? trust.state(key.ns(), key.id(), current, held.tombstone())
                : new DocState.Absent(held.tombstone(), lastLeftPresent.containsKey(key),
                        lastLeftPresent.containsKey(key) ? lastLeftPresent.get(key).version() : null);
        DocState state = start;
        // when the document is still as this task stamped it: the time of the own record that revealed that version
        BsonTimestamp revealedAt = revealedAt(key, start);
        BsonDocument doc = current;
        boolean blocked = false;
        List<PeerChange> keep = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        List<BsonDocument> conflicts = new ArrayList<>();
        // this cluster's own records that wait for a later record of the document from this cluster, and how many of
        // them have been released by one (a later record emitted by this cluster was processed after them)
        List<PeerChange> waitingOwn = new ArrayList<>();
        int released = 0;
        BsonTimestamp ownSince = null; // the latest cluster time among this cluster's own records in this fold
        // an own record showing that the content here is a later local write than its early stamp says: decided first
        BsonTimestamp revealedBefore = revealedAt;
        PeerChange revealing = queue.stream().filter(c -> refusal(c) == null
                && LastWriterWins.revealsContentHere(self, start, revealedBefore, c.incoming)).findFirst().orElse(null);
        if (revealing != null) {
            Decision d = LastWriterWins.decide(self, state, revealing.incoming, false, revealedAt);
            doc = step(key, revealing, d, state, doc, steps, conflicts);
            state = LastWriterWins.after(state, revealing.incoming, d);
            revealedAt = revealedAfter(revealedAt, revealing, d);
        }
        for (PeerChange c : queue) {
            boolean ownCluster = c.incoming.fromCluster().equals(self);
            if (ownCluster && c.sourceTime != null && (ownSince == null || c.sourceTime.compareTo(ownSince) > 0)) {
                // this cluster's source got this far, even when the record itself waits below (an echo of a peer's
                // write: what it says, the sink wrote itself, tombstone included)
                ownSince = c.sourceTime;
            }
            if (c == revealing) {
                continue;
            }
            if (blocked && !ownCluster) {
                keep.add(c);
                continue;
            }
            String refused = refusal(c);
            if (refused != null) {
                blocked = true;
                hold(c, refused, true, Action.HOLD);
                keep.add(c);
                continue;
            }
            BsonTimestamp deletedAt = ownCluster ? null : barrier.waitingFor(key, ownSince);
            if (deletedAt != null) {
                blocked = true;
                if (c.heldSince == 0) {
                    counters.heldForLocalDelete();
                }
                hold(c, "deleted on this cluster at " + deletedAt + " (its change stream shows it) and this cluster's own "
                        + "record of that delete has not been processed yet; the peer change waits for it", false, Action.HOLD);
                keep.add(c);
                continue;
            }
            Decision d = LastWriterWins.decide(self, state, c.incoming, false, revealedAt);
            if (d.waits()) {
                blocked = true;
                hold(c, d.reason(), false, d.action());
                keep.add(c);
                if (d.action() == Action.WAIT_OWN) {
                    waitingOwn.add(c);
                }
                state = LastWriterWins.after(state, c.incoming, d);
                continue;
            }
            if (ownCluster) {
                released = waitingOwn.size();
            }
            doc = step(key, c, d, state, doc, steps, conflicts);
            state = LastWriterWins.after(state, c.incoming, d);
            revealedAt = revealedAfter(revealedAt, c, d);
        }
        // own records released by a later one: decided now, against what that later record revealed (last-writer-wins
        // does not depend on the order of the writes it compares)
        for (PeerChange c : waitingOwn.subList(0, released)) {
            Decision d = LastWriterWins.decide(self, state, c.incoming, true);
            if (d.waits()) {
                hold(c, d.reason(), false, d.action());
                continue;
            }
            keep.remove(c);
            doc = step(key, c, d, state, doc, steps, conflicts);
            state = LastWriterWins.after(state, c.incoming, d);
            revealedAt = revealedAfter(revealedAt, c, d);
        }
        if (!sameStored(state, start)) {
            if (current == null && state instanceof DocState.Present) {
                // about to create the document: a local delete since the round's read would be resurrected by it
                localDeletes.catchUp(key.ns(), barrier);
                if (barrier.waitingFor(key, ownSince) != null) {
                    counters.retried();
                    return false;
                }
            }
            try {
                if (!transition(key, held, current, state, doc)) {
                    counters.retried();
                    return false;
                }
            } catch (MongoException e) {
                if (MongoErrors.classify(e) != ErrorClass.PER_RECORD) {
                    throw e;
                }
                String reason = "refused by the destination (code " + e.getCode() + "): " + e.getMessage()
                        + "; held and retried: fix the document or the destination's rules";
                queue.forEach(c -> hold(c, reason, true, Action.HOLD));
                return true;
            }
        }
        for (Step s : steps) {
            PeerChange c = s.change();
            c.heldReason = null;
            c.heldSince = 0;
            c.refused = false;
            counters.decided(s.decision().action(), c.incoming.origin());
        }
        if (ownSince != null) {
            barrier.ownRecordProcessed(key, ownSince);
        }
        for (BsonDocument c : conflicts) {
            counters.conflictResolved();
            store.recordConflict(key.ns(), c);
            counters.conflictRecorded();
        }
        if (state instanceof DocState.Present p) {
            lastLeftPresent.put(key, new LeftPresent(p.version(), revealedAt));
        } else if (((DocState.Absent) state).deletedUnrecorded()) {
            lastLeftPresent.put(key, new LeftPresent(((DocState.Absent) state).lastPresent(), null));
        } else {
            lastLeftPresent.remove(key);
        }
        if (keep.isEmpty()) {
            pending.remove(key);
        } else {
            pending.put(key, new ArrayDeque<>(keep));
        }
        return true;
    }

    /** The reveal time this task remembers for the document, when the document still holds the version it stamped then. */
    private BsonTimestamp revealedAt(PeerChange.DocKey key, DocState start) {
        LeftPresent left = lastLeftPresent.get(key);
        return left != null && left.revealedAt() != null && start instanceof DocState.Present p && p.version() != null
                && p.version().equals(left.version()) ? left.revealedAt() : null;
    }

    /** After a decided step: stamping a local write reveals its version at the record's time; any other write forgets it. */
    private static BsonTimestamp revealedAfter(BsonTimestamp revealedAt, PeerChange c, Decision d) {
        if (d.action() == Action.STAMP_LOCAL) {
            return c.incoming.sourceTime();
        }
        return d.changesState() ? null : revealedAt;
    }

    /**
     * Why a record cannot be decided at all, null when it can: it does not authenticate (read once), or its version
     * is further ahead of this machine's clock than allowed (checked again each round: it lands once the clock has
     * caught up, if that clock was only wrong).
     */
    private String refusal(PeerChange c) {
        if (c.unauthentic != null) {
            return c.unauthentic;
        }
        return PeerLimits.tooFarAhead(c.incoming.version(), System.currentTimeMillis() / 1000, maxAheadSeconds);
    }

    /** Notes one decided record of the fold; returns the document the fold now ends on. */
    private BsonDocument step(PeerChange.DocKey key, PeerChange c, Decision d, DocState state, BsonDocument doc, List<Step> steps,
                              List<BsonDocument> conflicts) {
        if (d.conflict()) {
            conflicts.add(ConflictRecord.of(self, key, c, d, state, doc));
        }
        steps.add(new Step(c, d));
        return d.changesState() && d.action() != Action.LOCAL_WRITE_LOSES ? c.document : doc;
    }

    /** Whether two states need the same thing stored (what the sink only expects does not count). */
    private static boolean sameStored(DocState a, DocState b) {
        if (a instanceof DocState.Absent x && b instanceof DocState.Absent y) {
            return java.util.Objects.equals(x.tombstone(), y.tombstone());
        }
        return a.equals(b);
    }

    private void hold(PeerChange c, String reason, boolean refused, Action why) {
        c.heldReason = reason;
        c.refused = refused;
        if (c.heldSince == 0) {
            c.heldSince = System.currentTimeMillis();
            counters.decided(why, c.incoming.origin()); // counted once per record
        }
    }

    private boolean transition(PeerChange.DocKey key, PeerStore.Held held, BsonDocument current, DocState next, BsonDocument doc) {
        if (next instanceof DocState.Present) {
            BsonDocument signed = trust.signedHere(key.ns(), key.id(), doc);
            boolean written = current != null ? store.replace(key.ns(), current, signed) : store.insert(key.ns(), signed);
            if (written && held.tombstoneRead() != null) {
                // the document exists again and its stamp protects it; a tombstone left behind would make
                // this cluster's source take a later local delete of it for the peer's
                store.dropTombstone(key.ns(), key.id());
            }
            return written;
        }
        Version tomb = ((DocState.Absent) next).tombstone();
        if (!store.keepTombstone(key.ns(), key.id(), held.tombstoneRead(), tomb)) {
            return false;
        }
        return current == null || store.delete(key.ns(), current);
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
