package dev.tideline.peer.sink;

import com.mongodb.MongoException;
import dev.tideline.event.Namespace;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.peer.DocState;
import dev.tideline.peer.LastWriterWins;
import dev.tideline.peer.LastWriterWins.Action;
import dev.tideline.peer.Version;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The peer write path. Records queue per document in arrival order ({@link PeerQueue}); each round reads what the
 * destination holds for the queued documents, folds each document's queue through {@link LastWriterWins}
 * ({@link DocumentFold}), and makes ONE conditional write per document from the state it read to the state the fold
 * ends in. A write whose condition fails (an application wrote meanwhile) is decided again on a fresh read. A
 * document stays queued while a record of it is HELD: a remote change waiting for a local write's stamp, or a write
 * the destination refused. Later remote changes of that document wait behind it; this cluster's own records still
 * pass (they are what un-holds).
 */
final class PeerApplier {
    private static final int ROUNDS = 3;

    private final String self;
    private final PeerQueue queue;
    private final PeerStore store;
    private final PeerCounters counters;
    private final LocalChangeWatcher localChanges;
    private final StampTrust trust;
    private final DocumentFold decisions;
    private final LocalChangeBarrier barrier = new LocalChangeBarrier();
    private final LastLeftPresent leftPresent = new LastLeftPresent();

    /** @param localChanges this cluster's deletes and writes, read after each read of the documents (the barrier's input) */
    PeerApplier(String self, PeerQueue queue, PeerStore store, PeerCounters counters, LocalChangeWatcher localChanges,
                StampTrust trust, long maxAheadMs) {
        this.self = self;
        this.queue = queue;
        this.store = store;
        this.counters = counters;
        this.localChanges = localChanges;
        this.trust = trust;
        this.decisions = new DocumentFold(self, maxAheadMs / 1000, System::currentTimeMillis);
    }

    /** @throws MongoException on a failure that is not about one document (the queues stay as they are) */
    void drain() {
        for (Map.Entry<Namespace, List<PeerChange.DocKey>> e : queue.documentsByNamespace().entrySet()) {
            List<PeerChange.DocKey> keys = e.getValue();
            for (int round = 0; round < ROUNDS && !keys.isEmpty(); round++) {
                List<BsonValue> ids = keys.stream().map(PeerChange.DocKey::id).toList();
                Map<BsonValue, PeerStore.Held> held = store.read(e.getKey(), ids);
                // after the read: every local delete the read could have missed is known now
                localChanges.catchUp(e.getKey(), barrier, () -> queue.earliestOwnChange(e.getKey()));
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
                queue.of(k).forEach(c -> hold(c, "the conditional write failed " + ROUNDS + " times in a row (the document "
                        + "changed under every attempt); retried", false, Action.HOLD));
            }
        }
    }

    /** @return false when the destination changed under the decision: read again */
    private boolean settle(PeerChange.DocKey key, PeerStore.Held held) {
        Deque<PeerChange> queued = queue.of(key);
        BsonDocument current = held.document();
        DocState start = current != null ? trust.state(key.ns(), key.id(), current, held.tombstone())
                : leftPresent.absent(key, held.tombstone());
        // when the document is still as this task stamped it: the time of the own record that revealed that version
        DocumentFold.Outcome fold = decisions.fold(key, queued, start, current, leftPresent.revealedAt(key, start), barrier);
        fold.holds().forEach(this::hold);
        List<BsonDocument> conflicts = fold.conflicts().stream()
                .map(c -> ConflictRecord.of(self, key, c.change(), c.decision(), c.before(), c.documentBefore())).toList();
        if (fold.needsWrite()) {
            if (current == null && fold.end() instanceof DocState.Present) {
                // about to create the document: a local delete since the round's read would be resurrected by it
                localChanges.catchUp(key.ns(), barrier, () -> queue.earliestOwnChange(key.ns()));
                if (barrier.waitingFor(key, fold.ownSince()) != null) {
                    counters.retried();
                    return false;
                }
            }
            try {
                if (!transition(key, held, current, fold.end(), fold.document())) {
                    counters.retried();
                    return false;
                }
            } catch (MongoException e) {
                if (MongoErrors.classify(e) != ErrorClass.PER_RECORD) {
                    throw e;
                }
                String reason = "refused by the destination (code " + e.getCode() + "): " + e.getMessage()
                        + "; held and retried: fix the document or the destination's rules";
                queued.forEach(c -> hold(c, reason, true, Action.HOLD));
                return true;
            }
        }
        for (DocumentFold.Step s : fold.steps()) {
            PeerChange c = s.change();
            c.heldReason = null;
            c.heldSince = 0;
            c.refused = false;
            counters.decided(s.decision().action(), c.incoming.origin());
        }
        if (fold.ownSince() != null) {
            barrier.ownRecordProcessed(key, fold.ownSince());
        }
        for (BsonDocument c : conflicts) {
            counters.conflictResolved();
            store.recordConflict(key.ns(), c);
            counters.conflictRecorded();
        }
        leftPresent.remember(key, fold.end(), fold.revealedAt());
        queue.requeue(key, fold.keep());
        return true;
    }

    private void hold(DocumentFold.Hold h) {
        if (h.forLocalDelete() && h.change().heldSince == 0) {
            counters.heldForLocalDelete();
        }
        hold(h.change(), h.reason(), h.refused(), h.why());
    }

    private void hold(PeerChange c, String reason, boolean refused, Action why) {
        c.heldReason = reason;
        c.refused = refused;
        if (c.heldSince == 0) {
            c.heldSince = System.currentTimeMillis();
            counters.decided(why, c.incoming.origin()); // counted once per record
        }
    }

    /** The conditional write from what was read to the state the fold ends in; false when the condition failed. */
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
}
