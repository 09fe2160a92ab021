package dev.tideline.peer;

import org.bson.BsonTimestamp;

/**
 * Deterministic last-writer-wins on {@link Version} (origin time, then origin id), with tombstones,
 * echo suppression and holds. Pure: given what this cluster holds and one incoming change, says what
 * to do; {@link #after} gives the state that follows, so a batch of changes to one document folds.
 *
 * <p>Every cluster must end on the greatest version among all the records of a document, whatever
 * order it sees them in and however often (a restarted source emits again what it had emitted, and a
 * change event read late carries a later write's content under the earlier event's version). So this
 * cluster's OWN records are decided by the same rule as a peer's: an own write newer than what is
 * here is written here too (a peer applies it), an own delete newer than what is here deletes it.
 * What sets them apart: an own record whose content IS the unstamped local write here reveals that
 * write's version (it is stamped), an own delete of a document absent here records its tombstone, and
 * an own record of a state this cluster has already left (an application wrote or deleted the
 * document again since, and this cluster's record of that has not been processed) WAITS for that
 * later record, then is decided against what it revealed. A peer's change meeting a local write whose
 * version is not known yet is HELD until the stamp lands, so a stale peer value never replaces a
 * newer local one, even for a moment. An echo (a peer's record of our own write) is skipped.
 */
public final class LastWriterWins {
    public enum Action {
        /** our own write, seen again through a peer: nothing to do */
        SKIP_ECHO,
        /** our own local write: stamp the document with its version */
        STAMP_LOCAL,
        /** our own local delete: keep its tombstone */
        RECORD_LOCAL_DELETE,
        /** our own delete is newer than the document here (a peer write applied before the delete was known): delete it */
        UNDO_RESURRECTION,
        /** our own local write lost to a newer delete whose tombstone is kept here: delete it, as every peer does */
        LOCAL_WRITE_LOSES,
        /** nothing to do (already known, or superseded) */
        NOTHING,
        /**
         * our own record of a state this cluster has left since (written or deleted again locally): it waits for this
         * cluster's later record of the document, then is decided against it
         */
        WAIT_OWN,
        /** a write (a peer's, or our own re-labelled one) newer than what is here: write it */
        APPLY_WRITE,
        /** a peer delete wins over the document: delete it, keep the tombstone */
        APPLY_DELETE,
        /** a peer delete of a document this cluster does not have: keep the tombstone */
        RECORD_REMOTE_DELETE,
        /** this version is already here */
        DUPLICATE,
        /** a newer version is already here: the incoming change loses */
        STALE,
        /** the local version is not known yet: wait */
        HOLD
    }

    /** @param conflict true when two concurrent writes from different clusters met and one lost */
    public record Decision(Action action, boolean conflict, String reason) {
        static Decision of(Action a, String reason) {
            return new Decision(a, false, reason);
        }

        public boolean changesState() {
            return switch (action) {
                case STAMP_LOCAL, RECORD_LOCAL_DELETE, UNDO_RESURRECTION, LOCAL_WRITE_LOSES, APPLY_WRITE, APPLY_DELETE,
                     RECORD_REMOTE_DELETE -> true;
                default -> false;
            };
        }

        /** The record cannot be decided yet: it stays queued. */
        public boolean waits() {
            return action == Action.HOLD || action == Action.WAIT_OWN;
        }
    }

    private LastWriterWins() {
    }

    public static Decision decide(String self, DocState current, Incoming in) {
        return decide(self, current, in, false);
    }

    /**
     * @param released true when a later record of this document emitted by this cluster has been processed since
     *                 this one arrived: what this cluster did to the document afterwards is known, so an own record
     *                 that waited for it is decided now
     */
    public static Decision decide(String self, DocState current, Incoming in, boolean released) {
        return decide(self, current, in, released, null);
    }

    /**
     * @param revealedAt when the document here holds a version this sink stamped on a local write (STAMP_LOCAL) and
     *                   the document has not changed since: the cluster time of this cluster's own record that revealed
     *                   it (null when unknown). An own record of a LATER event with other content, or an own delete
     *                   of a later event, then proves the stamp early: that record's event was read late (an update's
     *                   document is looked up when the event is read, so it can show a later write's content under its
     *                   own, earlier version), and the content here is a local write made after this record's event,
     *                   whose own record is still to come. Writing this record's content (or deleting) would put this
     *                   cluster back to an older state of its own: it waits for that record instead.
     */
    public static Decision decide(String self, DocState current, Incoming in, boolean released, BsonTimestamp revealedAt) {
        return decide(self, current, in, released, revealedAt, null);
    }

    /**
     * @param writtenLater the cluster time of a write of the document on this cluster later than this record's event
     *                     that no own record has reached yet (this cluster's change stream shows it), null when none.
     *                     An own record carrying the unstamped content here then waits instead of stamping it: an
     *                     update's document is looked up when its event is read, so the content may be that later
     *                     write's, and stamped with this earlier version it would lose to a peer's write made between
     *                     the two. The later write's own record stamps it with its real version.
     */
    public static Decision decide(String self, DocState current, Incoming in, boolean released, BsonTimestamp revealedAt,
                                  BsonTimestamp writtenLater) {
        if (in.origin().equals(self)) {
            if (!in.fromCluster().equals(self)) {
                return Decision.of(Action.SKIP_ECHO, "our own write, echoed by " + in.fromCluster());
            }
            boolean stampedEarly = !released && revealedAt != null && in.sourceTime() != null
                    && in.sourceTime().compareTo(revealedAt) > 0;
            return in.isDelete() ? ownDelete(self, current, in, stampedEarly)
                    : ownWrite(current, in, released, stampedEarly, writtenLater);
        }
        return remote(current, in);
    }

    /**
     * Whether an own record reveals that the content here is newer than the version stamped on it: the document holds
     * the version this sink stamped on a local write (revealed by an own record at {@code revealedAt}), and this own
     * record, of a LATER event, carries that same content under a newer version. The stamp came early (an update read
     * late, whose lookup showed this later write's content), so the content here is this record's write: a fold
     * decides it first, or the peer changes queued before it would be compared with the early stamp and written over
     * this cluster's newer local write.
     */
    public static boolean revealsContentHere(String self, DocState here, BsonTimestamp revealedAt, Incoming in) {
        return here instanceof DocState.Present p && p.version() != null && revealedAt != null && !in.isDelete()
                && in.origin().equals(self) && in.fromCluster().equals(self) && in.sourceTime() != null
                && in.sourceTime().compareTo(revealedAt) > 0 && p.content().equals(in.content()) && in.version().newerThan(p.version());
    }

    private static Decision ownWrite(DocState current, Incoming in, boolean released, boolean stampedEarly,
                                     BsonTimestamp writtenLater) {
        if (current instanceof DocState.Present p) {
            if (p.version() == null) {
                if (!p.content().equals(in.content())) {
                    return Decision.of(Action.WAIT_OWN, "written again here since this local write " + in.version()
                            + "; waits for this cluster's record of that write");
                }
                if (writtenLater != null) {
                    return Decision.of(Action.WAIT_OWN, "written again here at " + writtenLater + " (this cluster's change "
                            + "stream shows it), after local write " + in.version() + ", whose record carries the content "
                            + "looked up later; waits for this cluster's record of that write to stamp it");
                }
                if (p.tombstone() != null && p.tombstone().newerThan(in.version())) {
                    return new Decision(Action.LOCAL_WRITE_LOSES, !p.tombstone().origin().equals(in.origin()),
                            "delete " + p.tombstone() + " wins over local write " + in.version());
                }
                return Decision.of(Action.STAMP_LOCAL, "local write " + in.version());
            }
            int c = in.version().compareTo(p.version());
            if (c == 0) {
                return Decision.of(Action.NOTHING, "already stamped " + p.version());
            }
            if (c < 0) {
                return Decision.of(Action.NOTHING, p.version() + " replaced local write " + in.version() + " here");
            }
            if (p.content().equals(in.content())) {
                return Decision.of(Action.STAMP_LOCAL, "local write " + in.version() + ", stamped " + p.version()
                        + " before (its event was read late)");
            }
            return stampedEarly ? Decision.of(Action.WAIT_OWN, "written again here after local write " + in.version() + " ("
                    + p.version() + " was stamped on that later content by an event read late); waits for this cluster's record "
                    + "of that write")
                    : Decision.of(Action.APPLY_WRITE, "local write " + in.version() + " is newer than " + p.version()
                    + ", which replaced it here");
        }
        DocState.Absent a = (DocState.Absent) current;
        if (!in.version().newerThan(a.tombstone())) {
            return Decision.of(Action.NOTHING, "delete " + a.tombstone() + " is newer than local write " + in.version());
        }
        return released ? Decision.of(Action.APPLY_WRITE, "local write " + in.version() + " is newer than what is here")
                : Decision.of(Action.WAIT_OWN, "deleted here after local write " + in.version()
                        + "; waits for this cluster's record of that delete");
    }

    private static Decision ownDelete(String self, DocState current, Incoming in, boolean stampedEarly) {
        if (current instanceof DocState.Absent a) {
            return in.version().newerThan(a.tombstone()) ? Decision.of(Action.RECORD_LOCAL_DELETE, "local delete " + in.version())
                    : Decision.of(Action.NOTHING, "tombstone " + a.tombstone() + " already kept");
        }
        DocState.Present p = (DocState.Present) current;
        if (p.version() == null) {
            return Decision.of(Action.WAIT_OWN, "written again here since local delete " + in.version()
                    + "; waits for this cluster's record of that write");
        }
        if (in.version().newerThan(p.version()) && stampedEarly) {
            return Decision.of(Action.WAIT_OWN, "written again here after local delete " + in.version() + " (" + p.version()
                    + " was stamped on that later content by an event read late); waits for this cluster's record of that write");
        }
        if (in.version().newerThan(p.version())) {
            return new Decision(Action.UNDO_RESURRECTION, !p.version().origin().equals(self), "write " + p.version()
                    + " arrived before our newer delete " + in.version() + " was known here");
        }
        return Decision.of(Action.NOTHING, p.version() + " is newer than local delete " + in.version());
    }

    private static Decision remote(DocState current, Incoming in) {
        if (current instanceof DocState.Present p) {
            if (p.version() == null) {
                return Decision.of(Action.HOLD, "a local write to this document is not stamped yet (this cluster's own record "
                        + "of it has not been processed); the peer change waits for it");
            }
            int c = in.version().compareTo(p.version());
            if (c == 0) {
                return Decision.of(Action.DUPLICATE, "version " + in.version() + " already here");
            }
            boolean otherOrigin = !p.version().origin().equals(in.origin());
            if (c > 0) {
                boolean conflict = otherOrigin && !p.version().equals(in.base());
                return new Decision(in.isDelete() ? Action.APPLY_DELETE : Action.APPLY_WRITE, conflict,
                        in.version() + " wins over " + p.version());
            }
            boolean conflict = otherOrigin && !in.version().equals(p.base());
            return new Decision(Action.STALE, conflict, p.version() + " wins over " + in.version());
        }
        DocState.Absent absent = (DocState.Absent) current;
        if (absent.deletedUnrecorded() && absent.tombstone() == null) {
            return Decision.of(Action.HOLD, "the document was deleted here and this cluster's own record of that delete "
                    + "has not been processed yet; the peer change waits for it");
        }
        Version known = absent.deletedUnrecorded() ? absent.lastPresent() : null;
        if (known != null && !in.isDelete() && !in.version().newerThan(known)) {
            // this cluster held `known` (or this very version) and deleted it since: the unrecorded local delete is newer
            return in.version().equals(known) ? Decision.of(Action.DUPLICATE, "version " + known + " was here, deleted since")
                    : Decision.of(Action.STALE, known + " was here, deleted since: newer than " + in.version());
        }
        Version tomb = absent.tombstone();
        if (tomb != null && in.version().equals(tomb)) {
            return Decision.of(Action.DUPLICATE, "delete " + tomb + " already here");
        }
        if (in.isDelete()) {
            return in.version().newerThan(tomb) ? Decision.of(Action.RECORD_REMOTE_DELETE, "peer delete " + in.version())
                    : Decision.of(Action.STALE, "newer delete " + tomb + " already here");
        }
        if (in.version().newerThan(tomb)) {
            boolean conflict = tomb != null && !tomb.origin().equals(in.origin()) && !tomb.equals(in.base());
            return new Decision(Action.APPLY_WRITE, conflict, tomb == null ? "new document" : in.version() + " wins over delete " + tomb);
        }
        return new Decision(Action.STALE, !tomb.origin().equals(in.origin()), "delete " + tomb + " wins over " + in.version());
    }

    /** The state after a decision was carried out. */
    public static DocState after(DocState current, Incoming in, Decision d) {
        return switch (d.action()) {
            case STAMP_LOCAL, APPLY_WRITE -> new DocState.Present(in.content(), in.version(), in.base());
            case RECORD_LOCAL_DELETE -> current instanceof DocState.Absent a && a.deletedUnrecorded() && a.lastPresent() != null
                    && a.lastPresent().newerThan(in.version())
                    // an older local delete: the document was written again since and a later local delete removed it
                    ? new DocState.Absent(in.version(), true, a.lastPresent()) : new DocState.Absent(in.version());
            case UNDO_RESURRECTION, APPLY_DELETE, RECORD_REMOTE_DELETE -> new DocState.Absent(in.version());
            case LOCAL_WRITE_LOSES -> new DocState.Absent(((DocState.Present) current).tombstone());
            // an own write of a document absent here: a local delete came after it (the version was here, then deleted)
            case WAIT_OWN -> current instanceof DocState.Absent a ? new DocState.Absent(a.tombstone(), true,
                    a.lastPresent() != null && a.lastPresent().newerThan(in.version()) ? a.lastPresent()
                            : in.isDelete() ? a.lastPresent() : in.version()) : current;
            default -> current;
        };
    }
}
