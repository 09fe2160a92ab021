package dev.tideline.peer.sink;

import static dev.tideline.peer.LastWriterWins.Action.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.peer.DocState;
import dev.tideline.peer.Incoming;
import dev.tideline.peer.LastWriterWins.Action;
import dev.tideline.peer.Version;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class DocumentFoldTest {
    private static final String SELF = "A";
    private static final PeerChange.DocKey KEY = new PeerChange.DocKey(Namespace.parse("db.docs"), new BsonString("x"));
    /** far past every version below: none is too far ahead */
    private static final long NOW_MS = 1_000_000_000L * 1000;
    private static final BsonDocument HERE = doc("here");

    private final long[] clock = {NOW_MS};
    private final DocumentFold fold = new DocumentFold(SELF, 300, () -> clock[0]);
    private final LocalChangeBarrier barrier = new LocalChangeBarrier();

    private static BsonTimestamp t(int secs) {
        return new BsonTimestamp(secs, 1);
    }

    private static Version v(int secs, String origin) {
        return new Version(t(secs), origin);
    }

    private static BsonDocument doc(String content) {
        return new BsonDocument("_id", KEY.id()).append("c", new BsonString(content));
    }

    private static PeerChange change(String origin, String from, Version v, Version base, String content, BsonTimestamp at) {
        return new PeerChange(null, KEY.ns(), KEY.id(), new Incoming(origin, from, v, base, content, at),
                content == null ? null : doc(content), null, at);
    }

    /** A first-hand record of a peer's write (or delete: content null). */
    private static PeerChange peer(Version v, Version base, String content) {
        return change(v.origin(), v.origin(), v, base, content, null);
    }

    /** This cluster's own record of a local write (or delete: content null), its event at the version's time. */
    private static PeerChange own(Version v, Version base, String content) {
        return change(SELF, SELF, v, base, content, v.time());
    }

    private DocumentFold.Outcome run(DocState start, BsonDocument current, PeerChange... queue) {
        return fold.fold(KEY, List.of(queue), start, current, null, barrier);
    }

    private static List<Action> actions(DocumentFold.Outcome o) {
        return o.steps().stream().map(s -> s.decision().action()).toList();
    }

    @Test
    void aNewerPeerWriteIsWrittenOverTheDocumentHere() {
        PeerChange w = peer(v(20, "B"), v(10, "A"), "c2");
        DocumentFold.Outcome o = run(new DocState.Present("c1", v(10, "A"), null), HERE, w);

        assertThat(actions(o)).containsExactly(APPLY_WRITE);
        assertThat(o.end()).isEqualTo(new DocState.Present("c2", v(20, "B"), v(10, "A")));
        assertThat(o.document()).isSameAs(w.document);
        assertThat(o.needsWrite()).isTrue();
        assertThat(o.conflicts()).as("based on the version here: no conflict").isEmpty();
        assertThat(o.holds()).isEmpty();
        assertThat(o.keep()).isEmpty();
    }

    @Test
    void anOlderConcurrentPeerWriteLosesAndIsAConflictWithWhatWasHere() {
        DocState here = new DocState.Present("c1", v(30, "A"), v(5, "A"));
        PeerChange w = peer(v(20, "B"), v(5, "A"), "c2");
        DocumentFold.Outcome o = run(here, HERE, w);

        assertThat(actions(o)).containsExactly(STALE);
        assertThat(o.end()).isEqualTo(here);
        assertThat(o.document()).isSameAs(HERE);
        assertThat(o.needsWrite()).isFalse();
        assertThat(o.conflicts()).singleElement().satisfies(c -> {
            assertThat(c.change()).isSameAs(w);
            assertThat(c.decision().action()).isEqualTo(STALE);
            assertThat(c.before()).isEqualTo(here);
            assertThat(c.documentBefore()).isSameAs(HERE);
        });
    }

    @Test
    void aNewerConcurrentPeerWriteWinsAndItsConflictKeepsWhatItReplaced() {
        DocState here = new DocState.Present("c1", v(10, "A"), null);
        DocumentFold.Outcome o = run(here, HERE, peer(v(20, "B"), null, "c2"));

        assertThat(actions(o)).containsExactly(APPLY_WRITE);
        assertThat(o.conflicts()).singleElement().satisfies(c -> {
            assertThat(c.before()).isEqualTo(here);
            assertThat(c.documentBefore()).isSameAs(HERE);
        });
    }

    @Test
    void anEchoOfOurOwnWriteIsSkippedAndDoesNotCountAsThisClustersRecord() {
        DocState here = new DocState.Present("c1", v(10, "A"), null);
        PeerChange echo = change(SELF, "B", v(10, "A"), null, "c1", t(12));
        DocumentFold.Outcome o = run(here, HERE, echo);

        assertThat(actions(o)).containsExactly(SKIP_ECHO);
        assertThat(o.needsWrite()).isFalse();
        assertThat(o.ownSince()).as("emitted by B's source, not this cluster's").isNull();
        assertThat(o.keep()).isEmpty();
    }

    @Test
    void theVersionAlreadyHereIsADuplicate() {
        DocumentFold.Outcome o = run(new DocState.Present("c1", v(10, "B"), null), HERE, peer(v(10, "B"), null, "c1"));

        assertThat(actions(o)).containsExactly(DUPLICATE);
        assertThat(o.needsWrite()).isFalse();
    }

    @Test
    void aNewerPeerDeleteDeletesAndKeepsItsTombstone() {
        DocumentFold.Outcome o = run(new DocState.Present("c1", v(10, "A"), null), HERE, peer(v(20, "B"), v(10, "A"), null));

        assertThat(actions(o)).containsExactly(APPLY_DELETE);
        assertThat(o.end()).isEqualTo(new DocState.Absent(v(20, "B")));
        assertThat(o.needsWrite()).isTrue();
    }

    @Test
    void aPeerDeleteOfADocumentNotHereKeepsItsTombstoneOnce() {
        DocumentFold.Outcome o = run(new DocState.Absent(null), null, peer(v(20, "B"), null, null));
        assertThat(actions(o)).containsExactly(RECORD_REMOTE_DELETE);
        assertThat(o.end()).isEqualTo(new DocState.Absent(v(20, "B")));
        assertThat(o.needsWrite()).isTrue();

        DocumentFold.Outcome again = run(new DocState.Absent(v(20, "B")), null, peer(v(20, "B"), null, null));
        assertThat(actions(again)).containsExactly(DUPLICATE);
        assertThat(again.needsWrite()).isFalse();
    }

    @Test
    void aTombstoneBeatsAnOlderPeerWriteAndLosesToANewerOne() {
        DocumentFold.Outcome older = run(new DocState.Absent(v(20, "A")), null, peer(v(10, "B"), null, "c1"));
        assertThat(actions(older)).containsExactly(STALE);
        assertThat(older.conflicts()).hasSize(1);
        assertThat(older.needsWrite()).isFalse();

        PeerChange newer = peer(v(30, "B"), null, "c3");
        DocumentFold.Outcome o = run(new DocState.Absent(v(20, "A")), null, newer);
        assertThat(actions(o)).containsExactly(APPLY_WRITE);
        assertThat(o.end()).isEqualTo(new DocState.Present("c3", v(30, "B"), null));
        assertThat(o.document()).isSameAs(newer.document);
        assertThat(o.needsWrite()).isTrue();
    }

    @Test
    void aLocalWriteOlderThanTheTombstoneHereLosesAndTheDocumentIsNotTaken() {
        DocState here = new DocState.Present("c1", null, null, v(20, "B"));
        DocumentFold.Outcome o = run(here, HERE, own(v(10, "A"), null, "c1"));

        assertThat(actions(o)).containsExactly(LOCAL_WRITE_LOSES);
        assertThat(o.end()).isEqualTo(new DocState.Absent(v(20, "B")));
        assertThat(o.document()).as("the document it ends on is not the losing write's").isSameAs(HERE);
        assertThat(o.conflicts()).singleElement().satisfies(c -> assertThat(c.before()).isEqualTo(here));
        assertThat(o.needsWrite()).isTrue();
    }

    @Test
    void peerChangesWaitForTheStampOfALocalWriteWhileOwnRecordsPass() {
        PeerChange first = peer(v(20, "B"), null, "p1");
        PeerChange second = peer(v(21, "B"), null, "p2");
        PeerChange stamp = own(v(15, "A"), null, "local");
        DocumentFold.Outcome o = run(new DocState.Present("local", null, null), HERE, first, second, stamp);

        assertThat(o.holds()).singleElement().satisfies(h -> {
            assertThat(h.change()).isSameAs(first);
            assertThat(h.why()).isEqualTo(HOLD);
            assertThat(h.refused()).isFalse();
            assertThat(h.forLocalDelete()).isFalse();
        });
        assertThat(o.keep()).as("the later peer change waits behind, in order").containsExactly(first, second);
        assertThat(actions(o)).containsExactly(STAMP_LOCAL);
        assertThat(o.end()).isEqualTo(new DocState.Present("local", v(15, "A"), null));
        assertThat(o.document()).isSameAs(stamp.document);
        assertThat(o.revealedAt()).as("stamped by this task: revealed by that record").isEqualTo(t(15));
        assertThat(o.ownSince()).isEqualTo(t(15));
        assertThat(o.needsWrite()).isTrue();
    }

    @Test
    void aVersionTooFarAheadOfTheClockWaitsUntilTheClockCatchesUp() {
        int nowSecs = (int) (NOW_MS / 1000);
        PeerChange ahead = peer(new Version(new BsonTimestamp(nowSecs + 1000, 1), "B"), null, "p");
        DocState here = new DocState.Present("c1", v(10, "A"), null);

        DocumentFold.Outcome o = run(here, HERE, ahead);
        assertThat(o.holds()).singleElement().satisfies(h -> {
            assertThat(h.reason()).contains("ahead of this worker's clock");
            assertThat(h.refused()).isTrue();
        });
        assertThat(o.keep()).containsExactly(ahead);

        clock[0] = NOW_MS + 1_000_000;
        assertThat(actions(run(here, HERE, ahead))).containsExactly(APPLY_WRITE);
    }

    @Test
    void aPeerChangeWaitsForThisClustersRecordOfALocalDeleteTheChangeStreamShowed() {
        barrier.deletedHere(KEY, t(50));
        PeerChange w = peer(v(20, "B"), null, "p");

        DocumentFold.Outcome waits = run(new DocState.Absent(null), null, w);
        assertThat(waits.holds()).singleElement().satisfies(h -> {
            assertThat(h.forLocalDelete()).isTrue();
            assertThat(h.refused()).isFalse();
            assertThat(h.reason()).contains("deleted on this cluster at " + t(50));
        });
        assertThat(waits.keep()).containsExactly(w);
        assertThat(waits.needsWrite()).isFalse();

        // that record earlier in the same fold: the peer change is decided against the delete's tombstone
        DocumentFold.Outcome decided = run(new DocState.Absent(null), null, own(v(50, "A"), null, null), w);
        assertThat(actions(decided)).containsExactly(RECORD_LOCAL_DELETE, STALE);
        assertThat(decided.end()).isEqualTo(new DocState.Absent(v(50, "A")));
        assertThat(decided.ownSince()).isEqualTo(t(50));
        assertThat(decided.keep()).isEmpty();
        assertThat(barrier.waitingFor(KEY, null)).as("the fold only reads the barrier").isEqualTo(t(50));
    }

    /**
     * Updates at 10 and 20 on this cluster, the record of 10 read late: its lookup shows the content of 20 (c2). A
     * peer's write at 15 is queued behind it. Stamped with 10, c2 would lose to the peer's 15 until the record of 20
     * wrote it back (an own record applied: a stale write over a newer one for a moment). The change stream shows the
     * write at 20, so the record of 10 waits, the peer's write waits behind it, and the record
     * of 20 stamps c2 with its real version, against which the peer's write loses.
     */
    @Test
    void anOwnRecordCarryingALaterLocalWritesContentWaitsForThatWritesRecord() {
        barrier.writtenHere(KEY, t(10));
        barrier.writtenHere(KEY, t(20));
        DocState unstamped = new DocState.Present("c2", null, null);
        PeerChange early = own(v(10, "A"), null, "c2");
        PeerChange between = peer(v(15, "B"), null, "p");

        DocumentFold.Outcome first = run(unstamped, HERE, early, between);
        assertThat(first.steps()).as("nothing stamped, nothing applied").isEmpty();
        assertThat(first.holds()).singleElement().satisfies(h -> {
            assertThat(h.change()).isSameAs(early);
            assertThat(h.why()).isEqualTo(WAIT_OWN);
            assertThat(h.reason()).contains("written again here at " + t(20));
        });
        assertThat(first.keep()).as("the peer's write waits behind it").containsExactly(early, between);
        assertThat(first.needsWrite()).isFalse();

        PeerChange later = own(v(20, "A"), v(10, "A"), "c2");
        DocumentFold.Outcome second = run(unstamped, HERE, early, between, later);
        assertThat(second.steps()).extracting(DocumentFold.Step::change).containsExactly(later, early);
        assertThat(actions(second)).containsExactly(STAMP_LOCAL, NOTHING);
        assertThat(second.keep()).as("the peer's write is decided against the real version next round").containsExactly(between);
        assertThat(second.end()).isEqualTo(new DocState.Present("c2", v(20, "A"), v(10, "A")));
        barrier.ownRecordProcessed(KEY, second.ownSince());

        DocumentFold.Outcome third = run(second.end(), HERE, between);
        assertThat(actions(third)).containsExactly(STALE);
        assertThat(third.end()).isEqualTo(second.end());
    }

    @Test
    void anOwnRecordOfAStateLeftSinceWaitsAndOnlyWhatTheSinkExpectsChanges() {
        PeerChange w = own(v(10, "A"), null, "c1");
        DocumentFold.Outcome o = run(new DocState.Absent(null), null, w);

        assertThat(o.holds()).singleElement().satisfies(h -> assertThat(h.why()).isEqualTo(WAIT_OWN));
        assertThat(o.keep()).containsExactly(w);
        assertThat(o.steps()).isEmpty();
        assertThat(o.end()).isEqualTo(new DocState.Absent(null, true, v(10, "A")));
        assertThat(o.ownSince()).as("counted even though it waits").isEqualTo(t(10));
        assertThat(o.needsWrite()).as("nothing else to store").isFalse();
    }

    @Test
    void aWaitingOwnRecordIsReleasedByALaterOneAndDecidedAgainstIt() {
        PeerChange w = own(v(10, "A"), null, "c1");
        PeerChange d = own(v(11, "A"), null, null);
        DocumentFold.Outcome o = run(new DocState.Absent(null), null, w, d);

        assertThat(o.holds()).singleElement().satisfies(h -> {
            assertThat(h.change()).isSameAs(w);
            assertThat(h.why()).isEqualTo(WAIT_OWN);
        });
        assertThat(o.steps()).extracting(DocumentFold.Step::change).containsExactly(d, w);
        assertThat(actions(o)).containsExactly(RECORD_LOCAL_DELETE, NOTHING);
        assertThat(o.keep()).isEmpty();
        assertThat(o.end()).isEqualTo(new DocState.Absent(v(11, "A")));
        assertThat(o.ownSince()).isEqualTo(t(11));
        assertThat(o.needsWrite()).isTrue();
    }

    /**
     * The content here (f0) was stamped early with e1's version (an update read late); e3, a later own record with
     * that content, reveals its real version: decided first, so the peer's write queued before it loses to it.
     */
    @Test
    void anOwnRecordRevealingTheContentHereIsDecidedBeforeThePeerChangesQueuedAheadOfIt() {
        Version e1 = new Version(new BsonTimestamp(100, 1), "A");
        BsonTimestamp e3At = new BsonTimestamp(100, 3);
        PeerChange p = peer(new Version(new BsonTimestamp(100, 2), "B"), e1, "p");
        PeerChange e3 = change(SELF, SELF, new Version(e3At, "A"), null, "f0", e3At);
        DocState here = new DocState.Present("f0", e1, null);

        DocumentFold.Outcome o = fold.fold(KEY, List.of(p, e3), here, HERE, new BsonTimestamp(100, 1), barrier);
        assertThat(o.steps()).extracting(DocumentFold.Step::change).containsExactly(e3, p);
        assertThat(actions(o)).containsExactly(STAMP_LOCAL, STALE);
        assertThat(o.end()).isEqualTo(new DocState.Present("f0", e3.incoming.version(), null));
        assertThat(o.document()).isSameAs(e3.document);
        assertThat(o.revealedAt()).isEqualTo(e3At);
        assertThat(o.conflicts()).singleElement().satisfies(c -> assertThat(c.change()).isSameAs(p));

        DocumentFold.Outcome unknown = fold.fold(KEY, List.of(p, e3), here, HERE, null, barrier);
        assertThat(unknown.steps()).as("no reveal time remembered: arrival order").extracting(DocumentFold.Step::change)
                .containsExactly(p, e3);
    }

    @Test
    void statesThatStoreTheSameThingNeedNoWrite() {
        assertThat(DocumentFold.sameStored(new DocState.Absent(v(1, "A")), new DocState.Absent(v(1, "A"), true, v(2, "B"))))
                .as("what the sink only expects does not count").isTrue();
        assertThat(DocumentFold.sameStored(new DocState.Absent(null), new DocState.Absent(v(1, "A")))).isFalse();
        assertThat(DocumentFold.sameStored(new DocState.Present("c", v(1, "A"), null), new DocState.Present("c", v(1, "A"), null)))
                .isTrue();
        assertThat(DocumentFold.sameStored(new DocState.Present("c", null, null), new DocState.Present("c", v(1, "A"), null)))
                .isFalse();
        assertThat(DocumentFold.sameStored(new DocState.Present("c", v(1, "A"), null), new DocState.Absent(v(1, "A")))).isFalse();
    }
}
