package dev.tideline.peer;

import static dev.tideline.peer.LastWriterWins.Action.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.peer.LastWriterWins.Decision;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class LastWriterWinsTest {
    private static Version v(int secs, String origin) {
        return new Version(new BsonTimestamp(secs, 1), origin);
    }

    private static Incoming write(String origin, String from, Version v, Version base, String content) {
        return new Incoming(origin, from, v, base, content);
    }

    private static Incoming delete(String origin, String from, Version v) {
        return new Incoming(origin, from, v, null, null);
    }

    private static Decision decideA(DocState s, Incoming in) {
        return LastWriterWins.decide("A", s, in);
    }

    @Test
    void ourOwnWriteEchoedByAPeerIsSkipped() {
        assertThat(decideA(new DocState.Present("c2", v(20, "A"), null), write("A", "B", v(10, "A"), null, "c1")).action()).isEqualTo(SKIP_ECHO);
        assertThat(decideA(new DocState.Absent(null), delete("A", "B", v(10, "A"))).action()).isEqualTo(SKIP_ECHO);
    }

    @Test
    void ourOwnRecordStampsTheLocalWriteOnlyWhileTheContentIsThatWrite() {
        assertThat(decideA(new DocState.Present("c1", null, null), write("A", "A", v(10, "A"), null, "c1")).action()).isEqualTo(STAMP_LOCAL);
        assertThat(decideA(new DocState.Present("c2", null, null), write("A", "A", v(10, "A"), null, "c1")).action())
                .as("written again locally since: waits for the record of that write").isEqualTo(WAIT_OWN);
        assertThat(decideA(new DocState.Present("c1", v(10, "A"), null), write("A", "A", v(10, "A"), null, "c1")).action()).isEqualTo(NOTHING);
        assertThat(decideA(new DocState.Absent(v(11, "B")), write("A", "A", v(10, "A"), null, "c1")).action()).isEqualTo(NOTHING);
    }

    /**
     * An own record carrying the unstamped content here, while this cluster's change stream shows a later local write
     * of the document that no own record has reached: the content may be that write's (an update looked up late), so
     * the record waits for that write's record instead of stamping it with its own, earlier version.
     */
    @Test
    void anOwnRecordWaitsInsteadOfStampingWhileALaterLocalWriteIsKnown() {
        DocState local = new DocState.Present("c2", null, null);
        Incoming e1 = ownAt(10, 1, null, "c2");
        Decision waits = LastWriterWins.decide("A", local, e1, false, null, new BsonTimestamp(20, 1));
        assertThat(waits.action()).isEqualTo(WAIT_OWN);
        assertThat(waits.reason()).contains("written again here at " + new BsonTimestamp(20, 1));
        assertThat(LastWriterWins.decide("A", local, e1, false, null, null).action()).as("no later write known")
                .isEqualTo(STAMP_LOCAL);
        assertThat(LastWriterWins.decide("A", new DocState.Present("c2", v(5, "B"), null), e1, false, null,
                new BsonTimestamp(20, 1)).action()).as("only the unstamped content is held back").isEqualTo(STAMP_LOCAL);
    }

    private static Incoming ownAt(int secs, int inc, Version base, String content) {
        return new Incoming("A", "A", new Version(new BsonTimestamp(secs, inc), "A"), base, content, new BsonTimestamp(secs, inc));
    }

    /**
     * Seen in the two- and three-cluster workloads: an update at e1 is read late and its lookup shows the content
     * (f0) of a later local write e3; e2 in between wrote other content. The record of e1 stamps f0 with e1's
     * version; the record of e2, a later event with other content, then proves that stamp early (f0 was written
     * again after e2): writing e2's content would put this cluster back to an older state of its own, so it waits
     * for the record of e3, and is nothing against it.
     */
    @Test
    void anOwnRecordOfALaterEventThanTheOneThatStampedTheContentWaitsInsteadOfRevertingIt() {
        Incoming e1 = ownAt(100, 1, null, "f0");
        Incoming e2 = ownAt(100, 2, e1.version(), "x");
        Incoming e3 = ownAt(100, 3, e2.version(), "f0");
        DocState local = new DocState.Present("f0", null, null);
        assertThat(decideA(local, e1).action()).isEqualTo(STAMP_LOCAL);
        DocState stamped = LastWriterWins.after(local, e1, decideA(local, e1));
        BsonTimestamp revealed = e1.sourceTime();

        Decision d2 = LastWriterWins.decide("A", stamped, e2, false, revealed);
        assertThat(d2.action()).isEqualTo(WAIT_OWN);
        assertThat(LastWriterWins.after(stamped, e2, d2)).isEqualTo(stamped);
        assertThat(LastWriterWins.decide("A", stamped, e2, false, null).action())
                .as("without the reveal time (after a restart of the sink): as before").isEqualTo(APPLY_WRITE);

        Decision d3 = LastWriterWins.decide("A", stamped, e3, false, revealed);
        assertThat(d3.action()).isEqualTo(STAMP_LOCAL);
        DocState restamped = LastWriterWins.after(stamped, e3, d3);
        assertThat(LastWriterWins.decide("A", restamped, e2, true, e3.sourceTime()).action()).isEqualTo(NOTHING);
        // released by a later own record that revealed nothing newer: decided as before (never waits for ever)
        assertThat(LastWriterWins.decide("A", stamped, e2, true, revealed).action()).isEqualTo(APPLY_WRITE);
    }

    /**
     * Seen in the three-cluster workload: the content here (f0) was stamped early with e1's version, and peer writes
     * newer than e1 but older than e3 (the local write that really made f0) were queued before e3's record. e3's
     * record reveals that the content here is e3's: decided first, the peer writes lose to it instead of replacing
     * this cluster's newer local write (and e3 being written back over them).
     */
    @Test
    void anOwnRecordOfALaterEventCarryingTheContentHereRevealsItsVersionBeforeThePeerChanges() {
        Incoming e1 = ownAt(100, 1, null, "f0");
        DocState stamped = new DocState.Present("f0", e1.version(), null);
        Incoming e3 = ownAt(100, 9, e1.version(), "f0");
        assertThat(LastWriterWins.revealsContentHere("A", stamped, e1.sourceTime(), e3)).isTrue();
        DocState revealed = LastWriterWins.after(stamped, e3, LastWriterWins.decide("A", stamped, e3, false, e1.sourceTime()));
        Incoming peer = write("B", "B", new Version(new BsonTimestamp(100, 5), "B"), null, "p");
        assertThat(decideA(stamped, peer).action()).as("against the early stamp").isEqualTo(APPLY_WRITE);
        assertThat(decideA(revealed, peer).action()).isEqualTo(STALE);

        assertThat(LastWriterWins.revealsContentHere("A", stamped, null, e3)).as("no reveal time known").isFalse();
        assertThat(LastWriterWins.revealsContentHere("A", stamped, e3.sourceTime(), e3)).as("not a later event").isFalse();
        assertThat(LastWriterWins.revealsContentHere("A", stamped, e1.sourceTime(), ownAt(100, 9, null, "other")))
                .as("other content").isFalse();
        assertThat(LastWriterWins.revealsContentHere("A", new DocState.Present("f0", null, null), e1.sourceTime(), e3))
                .as("not stamped: the usual rule").isFalse();
        assertThat(LastWriterWins.revealsContentHere("A", stamped, e1.sourceTime(),
                new Incoming("A", "B", e3.version(), null, "f0", e3.sourceTime()))).as("an echo").isFalse();
    }

    @Test
    void anOwnRecordOfAnEventNoLaterThanTheRevealIsDecidedAsBefore() {
        // a restarted source's re-emission of an older write under a later label: the event itself is older
        Incoming reemitted = new Incoming("A", "A", new Version(new BsonTimestamp(100, 9), "A"), null, "old",
                new BsonTimestamp(100, 1));
        DocState stamped = new DocState.Present("f0", new Version(new BsonTimestamp(100, 5), "A"), null);
        assertThat(LastWriterWins.decide("A", stamped, reemitted, false, new BsonTimestamp(100, 5)).action()).isEqualTo(APPLY_WRITE);
        // a peer's stamp here: no reveal time is kept for it
        DocState peer = new DocState.Present("p", new Version(new BsonTimestamp(100, 5), "B"), null);
        assertThat(LastWriterWins.decide("A", peer, ownAt(100, 6, null, "x"), false, null).action()).isEqualTo(APPLY_WRITE);
    }

    @Test
    void anOwnDeleteOfALaterEventThanTheOneThatStampedTheContentWaitsInsteadOfDeletingIt() {
        Incoming e1 = ownAt(100, 1, null, "f0");
        DocState stamped = new DocState.Present("f0", e1.version(), null);
        Incoming del = new Incoming("A", "A", new Version(new BsonTimestamp(100, 2), "A"), e1.version(), null,
                new BsonTimestamp(100, 2));
        assertThat(LastWriterWins.decide("A", stamped, del, false, e1.sourceTime()).action()).isEqualTo(WAIT_OWN);
        assertThat(LastWriterWins.decide("A", stamped, del, false, null).action()).isEqualTo(UNDO_RESURRECTION);
        assertThat(LastWriterWins.decide("A", stamped, del, true, e1.sourceTime()).action()).isEqualTo(UNDO_RESURRECTION);
    }

    @Test
    void ourOwnWriteOfADocumentNowAbsentMeansALocalDeleteFollows() {
        Incoming own = write("A", "A", v(10, "A"), null, "c1");
        DocState absent = new DocState.Absent(null);
        Decision d = decideA(absent, own);
        assertThat(d.action()).isEqualTo(WAIT_OWN);
        assertThat(d.changesState()).isFalse();
        DocState expecting = LastWriterWins.after(absent, own, d);
        assertThat(expecting).isEqualTo(new DocState.Absent(null, true, v(10, "A")));
        assertThat(decideA(expecting, write("B", "B", v(11, "B"), null, "x")).action()).isEqualTo(HOLD);
    }

    /**
     * Seen at 20,000 operations: this sink applied B's write (v20) to a document it found deleted, a later local
     * delete removed it, and only then did this cluster's own record of the EARLIER local delete (v15) arrive. That
     * delete must not make the sink forget that v20 was here: this cluster's own record of v20 (re-emitted by
     * its source) is then a duplicate, not a write to apply a second time.
     */
    @Test
    void anOlderLocalDeleteRecordedLateDoesNotMakeAVersionThatWasHereApplicableAgain() {
        DocState deletedSince = new DocState.Absent(null, true, v(20, "B")); // v20 was here; a local delete removed it
        Incoming olderDelete = delete("A", "A", v(15, "A"));
        Decision d = decideA(deletedSince, olderDelete);
        assertThat(d.action()).isEqualTo(RECORD_LOCAL_DELETE);
        DocState after = LastWriterWins.after(deletedSince, olderDelete, d);
        assertThat(after).isEqualTo(new DocState.Absent(v(15, "A"), true, v(20, "B")));

        assertThat(decideA(after, write("B", "A", v(20, "B"), null, "c")).action()).as("v20 again").isEqualTo(DUPLICATE);
        assertThat(decideA(after, write("B", "B", v(18, "B"), null, "c")).action()).as("older than v20").isEqualTo(STALE);
        assertThat(decideA(after, write("B", "B", v(25, "B"), null, "c")).action()).isEqualTo(APPLY_WRITE);

        Incoming laterDelete = delete("A", "A", v(22, "A"));
        Decision recorded = decideA(after, laterDelete);
        assertThat(recorded.action()).isEqualTo(RECORD_LOCAL_DELETE);
        assertThat(LastWriterWins.after(after, laterDelete, recorded)).as("the delete of v20 is known now")
                .isEqualTo(new DocState.Absent(v(22, "A")));
    }

    @Test
    void ourOwnDeleteKeepsATombstoneAndUndoesAnOlderPeerWriteThatSlippedIn() {
        assertThat(decideA(new DocState.Absent(null), delete("A", "A", v(10, "A"))).action()).isEqualTo(RECORD_LOCAL_DELETE);
        Decision undo = decideA(new DocState.Present("c", v(8, "B"), null), delete("A", "A", v(10, "A")));
        assertThat(undo.action()).isEqualTo(UNDO_RESURRECTION);
        assertThat(undo.conflict()).isTrue();
        assertThat(decideA(new DocState.Present("c", v(12, "B"), null), delete("A", "A", v(10, "A"))).action()).isEqualTo(NOTHING);
        assertThat(decideA(new DocState.Present("c", null, null), delete("A", "A", v(10, "A"))).action())
                .as("written again locally since the delete: waits for the record of that write").isEqualTo(WAIT_OWN);
        assertThat(decideA(new DocState.Present("c", v(12, "A"), null), delete("A", "A", v(10, "A"))).action()).isEqualTo(NOTHING);
        assertThat(decideA(new DocState.Present("c", v(9, "A"), null), delete("A", "A", v(10, "A"))).action())
                .as("our own newer delete wins over our own older write too").isEqualTo(UNDO_RESURRECTION);
    }

    /**
     * Seen after kill -9 of the worker: A's source read an update event late, so the record carried the content of
     * a LATER local write (A's v31) under the event's time (v18). A's sink stamped the document v18, applied B's v29
     * over it (newer than v18), and then met A's own record of v31 with B's content in place. A peer applies v31
     * (the newest); so must A, or the clusters differ for good.
     */
    @Test
    void ourOwnWriteNewerThanWhatReplacedItHereIsWrittenAgainAsEveryPeerDoes() {
        DocState afterPeer = new DocState.Present("b29", v(29, "B"), null);
        Decision d = decideA(afterPeer, write("A", "A", v(31, "A"), null, "a31"));
        assertThat(d.action()).isEqualTo(APPLY_WRITE);
        assertThat(LastWriterWins.after(afterPeer, write("A", "A", v(31, "A"), null, "a31"), d))
                .isEqualTo(new DocState.Present("a31", v(31, "A"), null));
        // the same content stamped with an older version of it (an event read late): stamped again with the newer one
        assertThat(decideA(new DocState.Present("a31", v(18, "A"), null), write("A", "A", v(31, "A"), null, "a31")).action())
                .isEqualTo(STAMP_LOCAL);
        assertThat(decideA(new DocState.Present("a31", v(31, "A"), null), write("A", "A", v(18, "A"), null, "a31")).action())
                .isEqualTo(NOTHING);
    }

    @Test
    void aLocalWriteOlderThanTheTombstoneKeptForTheDocumentLosesAsEveryPeerDecides() {
        DocState recreated = new DocState.Present("c", null, null, v(12, "B"));
        Incoming own = write("A", "A", v(11, "A"), null, "c");
        Decision d = decideA(recreated, own);
        assertThat(d.action()).isEqualTo(LOCAL_WRITE_LOSES);
        assertThat(d.conflict()).isTrue();
        assertThat(LastWriterWins.after(recreated, own, d)).isEqualTo(new DocState.Absent(v(12, "B")));
        assertThat(decideA(recreated, write("A", "A", v(13, "A"), null, "c")).action()).isEqualTo(STAMP_LOCAL);
    }

    @Test
    void anOwnRecordThatWaitedIsDecidedByLastWriterWinsOnceALaterOwnRecordWasProcessed() {
        Incoming w = write("A", "A", v(20, "A"), null, "c");
        DocState absent = new DocState.Absent(v(15, "B"));
        assertThat(LastWriterWins.decide("A", absent, w, false).action()).isEqualTo(WAIT_OWN);
        // the later own record was an OLDER-labelled delete: the write is the newest, every peer keeps it
        assertThat(LastWriterWins.decide("A", new DocState.Absent(v(18, "A")), w, true).action()).isEqualTo(APPLY_WRITE);
        assertThat(LastWriterWins.decide("A", new DocState.Absent(v(21, "A")), w, true).action()).isEqualTo(NOTHING);
    }

    @Test
    void aPeerChangeWaitsForTheStampOfALocalWrite() {
        assertThat(decideA(new DocState.Present("c", null, null), write("B", "B", v(99, "B"), null, "x")).action()).isEqualTo(HOLD);
        assertThat(decideA(new DocState.Present("c", null, null), delete("B", "B", v(99, "B"))).action()).isEqualTo(HOLD);
    }

    @Test
    void aPeerChangeWaitsForOurOwnRecordOfALocalDelete() {
        DocState deletedHere = new DocState.Absent(null, true);
        assertThat(decideA(deletedHere, write("B", "B", v(99, "B"), null, "x")).action()).isEqualTo(HOLD);
        Incoming ownDelete = delete("A", "A", v(50, "A"));
        Decision d = decideA(deletedHere, ownDelete);
        assertThat(d.action()).isEqualTo(RECORD_LOCAL_DELETE);
        DocState after = LastWriterWins.after(deletedHere, ownDelete, d);
        assertThat(decideA(after, write("B", "B", v(49, "B"), null, "x")).action()).isEqualTo(STALE);
        assertThat(decideA(after, write("B", "B", v(51, "B"), null, "x")).action()).isEqualTo(APPLY_WRITE);
    }

    @Test
    void newerWinsOlderLosesEqualIsADuplicate() {
        DocState here = new DocState.Present("c", v(10, "A"), null);
        Decision newer = decideA(here, write("B", "B", v(11, "B"), null, "x"));
        assertThat(newer.action()).isEqualTo(APPLY_WRITE);
        assertThat(newer.conflict()).as("B did not build on A's version: concurrent").isTrue();
        Decision older = decideA(here, write("B", "B", v(9, "B"), null, "x"));
        assertThat(older.action()).isEqualTo(STALE);
        assertThat(older.conflict()).isTrue();
        assertThat(decideA(here, write("A", "C", v(10, "A"), null, "c")).action()).isEqualTo(SKIP_ECHO);
        assertThat(decideA(new DocState.Present("c", v(10, "B"), null), write("B", "C", v(10, "B"), null, "c")).action()).isEqualTo(DUPLICATE);
        // the same second and increment on two clusters: the origin id breaks the tie, the same way everywhere
        assertThat(decideA(new DocState.Present("c", v(10, "B"), null), write("C", "C", v(10, "C"), null, "x")).action()).isEqualTo(APPLY_WRITE);
        assertThat(LastWriterWins.decide("C", new DocState.Present("x", v(10, "C"), null), write("B", "B", v(10, "B"), null, "c")).action())
                .isEqualTo(STALE);
    }

    @Test
    void aWriteBuiltOnTheVersionHereIsNotAConflict() {
        DocState here = new DocState.Present("c", v(10, "A"), null);
        Decision d = decideA(here, write("B", "B", v(11, "B"), v(10, "A"), "x"));
        assertThat(d.action()).isEqualTo(APPLY_WRITE);
        assertThat(d.conflict()).isFalse();
        // and a late older write that the version here was built on is stale, not a conflict
        Decision late = decideA(new DocState.Present("x", v(11, "B"), v(10, "C")), write("C", "C", v(10, "C"), null, "c"));
        assertThat(late.action()).isEqualTo(STALE);
        assertThat(late.conflict()).isFalse();
        // the same origin never conflicts with itself
        assertThat(decideA(new DocState.Present("c", v(10, "B"), null), write("B", "B", v(11, "B"), null, "x")).conflict()).isFalse();
    }

    @Test
    void tombstonesStopOlderWritesAndLetNewerOnesThrough() {
        DocState deleted = new DocState.Absent(v(10, "A"));
        Decision late = decideA(deleted, write("B", "B", v(9, "B"), null, "x"));
        assertThat(late.action()).isEqualTo(STALE);
        assertThat(late.conflict()).isTrue();
        assertThat(decideA(deleted, write("B", "B", v(11, "B"), null, "x")).action()).isEqualTo(APPLY_WRITE);
        assertThat(decideA(deleted, delete("B", "B", v(11, "B"))).action()).isEqualTo(RECORD_REMOTE_DELETE);
        assertThat(decideA(deleted, delete("B", "B", v(9, "B"))).action()).isEqualTo(STALE);
        assertThat(decideA(new DocState.Absent(null), write("B", "B", v(1, "B"), null, "x")).action()).isEqualTo(APPLY_WRITE);
        assertThat(decideA(new DocState.Absent(null), delete("B", "B", v(1, "B"))).action()).isEqualTo(RECORD_REMOTE_DELETE);
        assertThat(decideA(new DocState.Present("c", v(10, "A"), null), delete("B", "B", v(11, "B"))).action()).isEqualTo(APPLY_DELETE);
    }

    @Test
    void foldingABatchGivesTheStateOfTheLastWinner() {
        DocState s = new DocState.Present("c0", null, null);
        Incoming own = write("A", "A", v(10, "A"), null, "c0");
        s = LastWriterWins.after(s, own, decideA(s, own));
        assertThat(s).isEqualTo(new DocState.Present("c0", v(10, "A"), null));
        Incoming peer = write("B", "B", v(12, "B"), null, "c1");
        s = LastWriterWins.after(s, peer, decideA(s, peer));
        Incoming older = delete("B", "B", v(11, "B"));
        s = LastWriterWins.after(s, older, decideA(s, older));
        assertThat(s).isEqualTo(new DocState.Present("c1", v(12, "B"), null));
        Incoming del = delete("C", "C", v(13, "C"));
        s = LastWriterWins.after(s, del, decideA(s, del));
        assertThat(s).isEqualTo(new DocState.Absent(v(13, "C")));
    }
}
