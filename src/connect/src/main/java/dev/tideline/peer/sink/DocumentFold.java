package dev.tideline.peer.sink;

import dev.tideline.peer.DocState;
import dev.tideline.peer.LastWriterWins;
import dev.tideline.peer.LastWriterWins.Action;
import dev.tideline.peer.LastWriterWins.Decision;
import dev.tideline.peer.PeerLimits;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;

/**
 * The decision for one document, and nothing else: folds its queued records, in arrival order, through
 * {@link LastWriterWins} from the state read, and says which state (and document) the fold ends in, which records
 * were decided and the conflicts among them, which wait and why. A record of a peer that cannot be decided yet
 * blocks the later peer records of the document (they keep their order); this cluster's own records still pass
 * (they are what un-holds). Writes nothing, counts nothing, changes no record: {@link PeerApplier} carries the
 * outcome out.
 */
final class DocumentFold {
    /** One decided record of the fold. */
    record Step(PeerChange change, Decision decision) {
    }

    /**
     * A record that cannot be decided now: why, whether the destination refused it (not only waits), the action it
     * is counted under, and whether it waits for this cluster's own record of a local delete.
     */
    record Hold(PeerChange change, String reason, boolean refused, Action why, boolean forLocalDelete) {
    }

    /** A conflict a step resolved, with what this cluster held when it was decided (what {@link ConflictRecord} keeps). */
    record Conflict(PeerChange change, Decision decision, DocState before, BsonDocument documentBefore) {
    }

    /**
     * @param start      the state the fold started from (as read)
     * @param end        the state it ends in
     * @param document   the document it ends on (what is written when {@code end} is present)
     * @param revealedAt when the document ends as this task stamped it on a local write: the cluster time of the own
     *                   record that revealed that version; null otherwise
     * @param ownSince   the latest cluster time among this cluster's own records in the fold, null when none
     * @param holds      in the order they were met; a record may be held twice (an own record released and waiting
     *                   again): the later reason is the one that stands
     * @param keep       the records that stay queued, in arrival order
     */
    record Outcome(DocState start, DocState end, BsonDocument document, BsonTimestamp revealedAt, BsonTimestamp ownSince,
                   List<Step> steps, List<Conflict> conflicts, List<Hold> holds, List<PeerChange> keep) {
        /** Whether the end state needs something else stored than the start. */
        boolean needsWrite() {
            return !sameStored(end, start);
        }
    }

    private final String self;
    private final long maxAheadSeconds;
    private final LongSupplier clockMs;

    /** @param clockMs this machine's clock (epoch ms): versions further ahead of it than {@code maxAheadSeconds} wait */
    DocumentFold(String self, long maxAheadSeconds, LongSupplier clockMs) {
        this.self = self;
        this.maxAheadSeconds = maxAheadSeconds;
        this.clockMs = clockMs;
    }

    /**
     * @param queue      the document's records, in arrival order
     * @param start      what this cluster holds for the document, as read
     * @param current    the document as read, null when absent
     * @param revealedAt when the document is still as this task stamped it: the time of the own record that revealed
     *                   that version (else null)
     * @param barrier    the local deletes peer changes wait on, and the local writes own records wait on (only read)
     */
    Outcome fold(PeerChange.DocKey key, Collection<PeerChange> queue, DocState start, BsonDocument current,
                 BsonTimestamp revealedAt, LocalChangeBarrier barrier) {
        DocState state = start;
        BsonDocument doc = current;
        boolean blocked = false;
        List<PeerChange> keep = new ArrayList<>();
        List<Step> steps = new ArrayList<>();
        List<Conflict> conflicts = new ArrayList<>();
        List<Hold> holds = new ArrayList<>();
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
            doc = step(revealing, d, state, doc, steps, conflicts);
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
                holds.add(new Hold(c, refused, true, Action.HOLD, false));
                keep.add(c);
                continue;
            }
            BsonTimestamp deletedAt = ownCluster ? null : barrier.waitingFor(key, ownSince);
            if (deletedAt != null) {
                blocked = true;
                holds.add(new Hold(c, "deleted on this cluster at " + deletedAt + " (its change stream shows it) and this "
                        + "cluster's own record of that delete has not been processed yet; the peer change waits for it", false,
                        Action.HOLD, true));
                keep.add(c);
                continue;
            }
            BsonTimestamp writtenLater = ownCluster ? barrier.writtenAfter(key, c.sourceTime, ownSince) : null;
            Decision d = LastWriterWins.decide(self, state, c.incoming, false, revealedAt, writtenLater);
            if (d.waits()) {
                blocked = true;
                holds.add(new Hold(c, d.reason(), false, d.action(), false));
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
            doc = step(c, d, state, doc, steps, conflicts);
            state = LastWriterWins.after(state, c.incoming, d);
            revealedAt = revealedAfter(revealedAt, c, d);
        }
        // own records released by a later one: decided now, against what that later record revealed (last-writer-wins
        // does not depend on the order of the writes it compares)
        for (PeerChange c : waitingOwn.subList(0, released)) {
            Decision d = LastWriterWins.decide(self, state, c.incoming, true);
            if (d.waits()) {
                holds.add(new Hold(c, d.reason(), false, d.action(), false));
                continue;
            }
            keep.remove(c);
            doc = step(c, d, state, doc, steps, conflicts);
            state = LastWriterWins.after(state, c.incoming, d);
            revealedAt = revealedAfter(revealedAt, c, d);
        }
        return new Outcome(start, state, doc, revealedAt, ownSince, steps, conflicts, holds, keep);
    }

    /** After a decided step: stamping a local write reveals its version at the record's time; any other write forgets it. */
    private static BsonTimestamp revealedAfter(BsonTimestamp revealedAt, PeerChange c, Decision d) {
        if (d.action() == Action.STAMP_LOCAL) {
            return c.incoming.sourceTime();
        }
        return d.changesState() ? null : revealedAt;
    }

    /**
     * Why a record cannot be decided at all, null when it can: its version is further ahead of this machine's clock
     * than allowed (checked again each round: it lands once the clock has caught up, if that clock was only wrong).
     * A record that does not authenticate never gets here: {@link PeerRecordReader} refuses it to the dead letter queue.
     */
    private String refusal(PeerChange c) {
        return PeerLimits.tooFarAhead(c.incoming.version(), clockMs.getAsLong() / 1000, maxAheadSeconds);
    }

    /** Notes one decided record of the fold; returns the document the fold now ends on. */
    private static BsonDocument step(PeerChange c, Decision d, DocState state, BsonDocument doc, List<Step> steps,
                                     List<Conflict> conflicts) {
        if (d.conflict()) {
            conflicts.add(new Conflict(c, d, state, doc));
        }
        steps.add(new Step(c, d));
        return d.changesState() && d.action() != Action.LOCAL_WRITE_LOSES ? c.document : doc;
    }

    /** Whether two states need the same thing stored (what the sink only expects does not count). */
    static boolean sameStored(DocState a, DocState b) {
        if (a instanceof DocState.Absent x && b instanceof DocState.Absent y) {
            return Objects.equals(x.tombstone(), y.tombstone());
        }
        return a.equals(b);
    }
}
