package dev.tideline.peer;

/**
 * Deterministic last-writer-wins on {@link Version} (origin time, then origin id), with tombstones,
 * echo suppression and holds. Pure: given what this cluster holds and one incoming change, says what
 * to do; {@link #after} gives the state that follows, so a batch of changes to one document folds.
 *
 * <p>Records whose origin is this cluster are never applied as content: an echo (a peer's record of our
 * own write) is skipped; this cluster's own record of a local write only stamps the document with its
 * version (or records the tombstone of a local delete), which is how a local write's version becomes
 * known here. A remote change meeting a local write whose version is not known yet is HELD until the
 * stamp lands, so a stale remote value never replaces a newer local one, even for a moment.
 */
public final class LastWriterWins {
    public enum Action {
        /** our own write, seen again through a peer: nothing to do */
        SKIP_ECHO,
        /** our own local write: stamp the document with its version */
        STAMP_LOCAL,
        /** our own local delete: keep its tombstone */
        RECORD_LOCAL_DELETE,
        /** our own delete is newer than a peer write applied before we saw the delete: remove it again */
        UNDO_RESURRECTION,
        /** nothing to do (already known, or superseded by a later local write) */
        NOTHING,
        /** our own write of a document now absent: a local delete followed; peer changes wait for its record */
        EXPECT_LOCAL_DELETE,
        /** a peer write wins: write it */
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
                case STAMP_LOCAL, RECORD_LOCAL_DELETE, UNDO_RESURRECTION, APPLY_WRITE, APPLY_DELETE, RECORD_REMOTE_DELETE -> true;
                default -> false;
            };
        }
    }

    private LastWriterWins() {
    }

    public static Decision decide(String self, DocState current, Incoming in) {
        if (in.origin().equals(self)) {
            return in.fromCluster().equals(self) ? own(self, current, in)
                    : Decision.of(Action.SKIP_ECHO, "our own write, echoed by " + in.fromCluster());
        }
        return remote(current, in);
    }

    private static Decision own(String self, DocState current, Incoming in) {
        if (!in.isDelete()) {
            if (current instanceof DocState.Present p && p.content().equals(in.content())) {
                return p.version() == null || in.version().newerThan(p.version())
                        ? Decision.of(Action.STAMP_LOCAL, "local write " + in.version())
                        : Decision.of(Action.NOTHING, "already stamped " + p.version());
            }
            if (current instanceof DocState.Absent a && in.version().newerThan(a.tombstone())) {
                return Decision.of(Action.EXPECT_LOCAL_DELETE, "deleted here after this local write; the record of that delete follows");
            }
            return Decision.of(Action.NOTHING, "the document changed since this local write; a later record carries it");
        }
        if (current instanceof DocState.Absent a) {
            return in.version().newerThan(a.tombstone()) ? Decision.of(Action.RECORD_LOCAL_DELETE, "local delete " + in.version())
                    : Decision.of(Action.NOTHING, "tombstone " + a.tombstone() + " already kept");
        }
        DocState.Present p = (DocState.Present) current;
        if (p.version() != null && !p.version().origin().equals(self) && in.version().newerThan(p.version())) {
            return new Decision(Action.UNDO_RESURRECTION, true, "peer write " + p.version()
                    + " arrived before our newer delete " + in.version() + " was known here");
        }
        return Decision.of(Action.NOTHING, "re-created after this local delete");
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
            case EXPECT_LOCAL_DELETE -> new DocState.Absent(((DocState.Absent) current).tombstone(), true,
                    ((DocState.Absent) current).lastPresent());
            default -> current;
        };
    }
}
