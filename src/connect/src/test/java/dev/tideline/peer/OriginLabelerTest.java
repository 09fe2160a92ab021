package dev.tideline.peer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class OriginLabelerTest {
    private static final long NOW = 1_000_000;
    private static final BsonInt32 X = new BsonInt32(1);

    private static BsonTimestamp t(long seconds, int inc) {
        return new BsonTimestamp((int) seconds, inc);
    }

    private static LogicalClock clock(BsonTimestamp restored) {
        return new LogicalClock(restored, () -> NOW, 300);
    }

    private static OriginDetector.Detected local(String w) {
        return OriginDetector.detect(new BsonDocument("_id", X).append("w", new BsonString(w)), s -> true);
    }

    private static OriginDetector.Detected stampedBy(Version v, String w) {
        BsonDocument content = new BsonDocument("_id", X).append("w", new BsonString(w));
        return OriginDetector.detect(new PeerStamp(v, ContentHash.of(content), null).applyTo(content), s -> true);
    }

    @Test
    void aRestartedSourceLabelsAboveTheClockKeptWithItsCommittedPosition() {
        OriginLabeler restarted = new OriginLabeler("A", clock(t(NOW - 10, 5)));
        OriginLabeler.Label l = restarted.write(X, local("a"), t(NOW - 20, 1), true);
        assertThat(l.version()).isEqualTo(new Version(t(NOW - 10, 6), "A"));
        assertThat(restarted.clock()).isEqualTo(t(NOW - 10, 6));
        // without the kept clock the same event would be labelled below a peer version it overwrote
        assertThat(new OriginLabeler("A", clock(null)).write(X, local("a"), t(NOW - 20, 1), true).version().time()).isEqualTo(t(NOW - 20, 1));
    }

    @Test
    void theSameLocalContentReadAgainWithALaterEventIsEmittedAgainUnderTheLaterLabel() {
        OriginLabeler labeler = new OriginLabeler("A", clock(null));
        OriginLabeler.Label first = labeler.write(X, local("c2"), t(NOW - 20, 1), false); // update event read late: looked up c2
        OriginLabeler.Label again = labeler.write(X, local("c2"), t(NOW - 18, 1), true);  // c2's own event
        assertThat(again).isNotNull();
        assertThat(again.version().newerThan(first.version())).isTrue();
        assertThat(again.base()).isEqualTo(first.version());
    }

    /**
     * Seen in the two-cluster workload: an update at e1 read late, its lookup showing the content of a later write
     * (e3); an insert or replace at e2 with other content; then the sink stamped that content with e1's version.
     * When e3's update is read after the stamp, its lookup shows the content under e1's version, which is older than
     * e2's emitted just before: labelled with that stamp, e3's content would lose to e2's everywhere (the
     * application's last write lost). It is a local write, labelled now.
     */
    @Test
    void aLookedUpDocumentStampedByThisSinkWithAVersionOlderThanOneEmittedSinceIsALocalWrite() {
        OriginLabeler labeler = new OriginLabeler("A", clock(null));
        OriginLabeler.Label e1 = labeler.write(X, local("c3"), t(NOW - 20, 1), false); // update read late: looked up c3
        OriginLabeler.Label e2 = labeler.write(X, local("c2"), t(NOW - 20, 2), true);  // replace with c2
        OriginLabeler.Label e3 = labeler.write(X, stampedBy(e1.version(), "c3"), t(NOW - 20, 3), false);
        assertThat(e3).isNotNull();
        assertThat(e3.origin()).isEqualTo("A");
        assertThat(e3.version().newerThan(e2.version())).as("labelled after the write it overwrote").isTrue();
        assertThat(e3.base()).isEqualTo(e2.version());
        assertThat(e3.stamp()).isNotNull();
        // the sink's stamping write itself carries its document: it is what the sink wrote, read as the stamp says
        OriginLabeler.Label stampWrite = labeler.write(X, stampedBy(e1.version(), "c3"), t(NOW - 20, 4), true);
        assertThat(stampWrite.version()).isEqualTo(e1.version());
    }

    @Test
    void aLookedUpEarlyStampOfTheContentEmittedLastIsNotEmittedAgain() {
        OriginLabeler labeler = new OriginLabeler("A", clock(null));
        OriginLabeler.Label e1 = labeler.write(X, local("c3"), t(NOW - 20, 1), false);
        labeler.write(X, local("c2"), t(NOW - 20, 2), true);
        labeler.write(X, local("c3"), t(NOW - 20, 3), true); // e3's own event, before the stamp
        assertThat(labeler.write(X, stampedBy(e1.version(), "c3"), t(NOW - 20, 4), false)).isNull();
        // a peer's stamp older than what was emitted is what the peer wrote: not this rule's
        OriginLabeler other = new OriginLabeler("A", clock(null));
        Version peer = new Version(t(NOW - 30, 1), "B");
        other.write(X, local("a"), t(NOW - 20, 1), true);
        assertThat(other.write(X, stampedBy(peer, "b"), t(NOW - 20, 2), false).origin()).isEqualTo("B");
    }

    @Test
    void aStampedDocumentRepeatingTheLastVersionIsNotEmittedAgain() {
        OriginLabeler labeler = new OriginLabeler("A", clock(null));
        OriginLabeler.Label l = labeler.write(X, local("c"), t(NOW - 20, 1), true);
        assertThat(labeler.write(X, stampedBy(l.version(), "c"), t(NOW - 19, 1), true)).as("the sink's stamp of it").isNull();
        Version peer = new Version(t(NOW - 15, 3), "B");
        OriginLabeler.Label p = labeler.write(X, stampedBy(peer, "b"), t(NOW - 14, 1), true);
        assertThat(p.origin()).isEqualTo("B");
        assertThat(p.version()).isEqualTo(peer);
        assertThat(labeler.clock()).as("peer versions raise the clock").isEqualTo(peer.time());
    }

    @Test
    void aDeleteIsAPeersOnlyWhenItsTombstoneIsNewerThanWhatThisSourceLastEmitted() {
        OriginLabeler labeler = new OriginLabeler("A", clock(null));
        labeler.write(X, stampedBy(new Version(t(NOW - 30, 1), "B"), "b"), t(NOW - 29, 1), true);
        Version tomb = new Version(t(NOW - 20, 1), "B");
        assertThat(labeler.delete(X, tomb, t(NOW - 19, 1)).origin()).isEqualTo("B");
        // re-created locally after that peer delete, then deleted locally: the tombstone left behind is older
        OriginLabeler.Label insert = labeler.write(X, local("again"), t(NOW - 18, 1), true);
        OriginLabeler.Label del = labeler.delete(X, tomb, t(NOW - 17, 1));
        assertThat(del.origin()).isEqualTo("A");
        assertThat(del.version().newerThan(insert.version())).isTrue();
        assertThat(labeler.delete(X, new Version(t(NOW - 16, 1), "A"), t(NOW - 16, 2)).origin()).as("our own tombstone").isEqualTo("A");
    }

    /**
     * After a restart the labeler has no memory of a document last emitted before the committed position: that
     * version is at most the clock kept there. A local delete of a document re-created before the restart is never
     * taken for the peer's delete whose tombstone is still kept (the peers would skip it as an echo).
     */
    @Test
    void afterARestartADeleteOfADocumentNotSeenSinceIsAPeersOnlyWhenItsTombstoneIsNewerThanTheKeptClock() {
        OriginLabeler restarted = new OriginLabeler("A", clock(t(NOW - 10, 1)));
        OriginLabeler.Label local = restarted.delete(X, new Version(t(NOW - 12, 1), "B"), t(NOW - 5, 1));
        assertThat(local.origin()).isEqualTo("A");
        assertThat(local.version().time().compareTo(t(NOW - 5, 1))).isGreaterThanOrEqualTo(0);
        OriginLabeler again = new OriginLabeler("A", clock(t(NOW - 10, 1)));
        assertThat(again.delete(X, new Version(t(NOW - 8, 1), "B"), t(NOW - 5, 1)).origin()).isEqualTo("B");
    }

    @Test
    void aVersionFarInTheFutureNeitherMovesTheClockNorCountsAsAPeersDelete() {
        OriginLabeler labeler = new OriginLabeler("A", clock(null));
        Version forged = new Version(t(0xFFFF_FFF0L, 0), "B");
        OriginLabeler.Label d = labeler.delete(X, forged, t(NOW, 1));
        assertThat(d.origin()).isEqualTo("A");
        assertThat(labeler.clock()).isEqualTo(t(NOW, 1));
        LogicalClock c = clock(t(0xFFFF_FFF0L, 0));
        assertThat(c.current()).as("a far-future restored value is ignored").isEqualTo(new BsonTimestamp(0, 0));
        assertThat(c.observe(t(NOW + 301, 0))).isFalse();
        assertThat(c.observe(t(NOW + 299, 0))).isTrue();
        assertThat(c.label(t(NOW, 0), t(0xFFFF_FFF0L, 0))).as("a far-future floor is ignored").isEqualTo(t(NOW + 299, 1));
    }

    @Test
    void theClockNeverWraps() {
        assertThat(LogicalClock.next(new BsonTimestamp(5, -1))).isEqualTo(new BsonTimestamp(6, 0));
        assertThatThrownBy(() -> LogicalClock.next(new BsonTimestamp(-1, -1))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aPeerSinkHoldsARecordFurtherAheadOfItsClockThanAllowed() {
        assertThat(PeerLimits.tooFarAhead(new Version(t(NOW + 300, 0), "B"), NOW, 300)).isNull();
        assertThat(PeerLimits.tooFarAhead(new Version(t(NOW + 301, 0), "B"), NOW, 300)).contains("301 s ahead");
        assertThat(PeerLimits.tooFarAhead(new Version(new BsonTimestamp(-1, -1), "B"), NOW, 300)).as("unsigned seconds")
                .contains("ahead");
    }

    /**
     * A restarted source reads again the events after its committed position; an update event's document is looked up
     * then, and shows what the document is NOW (here: a peer's much later write). The local changes read again must
     * get the labels they got the first time, or they would win over the writes made after them.
     */
    @Test
    void eventsReadAgainAfterARestartGetTheLabelsTheyGotTheFirstTime() {
        BsonInt32 y = new BsonInt32(2);
        BsonInt32 z = new BsonInt32(3);
        Version later = new Version(t(NOW - 2, 9), "B");
        OriginLabeler first = new OriginLabeler("A", clock(t(NOW - 30, 1)));
        first.write(y, local("y1"), t(NOW - 20, 1), false);                    // update of y, its own content then
        Version deleteZ = first.delete(z, null, t(NOW - 19, 1)).version();
        Version writeX = first.write(X, local("x1"), t(NOW - 18, 1), true).version();

        OriginLabeler again = new OriginLabeler("A", clock(t(NOW - 30, 1)));   // restarted at the same position
        BsonDocument yNow = new BsonDocument("_id", y).append("w", new BsonString("b-late"));
        OriginLabeler.Label yAgain = again.write(y, OriginDetector.detect(new PeerStamp(later, ContentHash.of(yNow), null).applyTo(yNow),
                s -> true), t(NOW - 20, 1), false);                            // looked up now: B's later write
        assertThat(yAgain.version()).as("the document's own version, not a label").isEqualTo(later);
        // the tombstone read now is a later delete's: the record carries that delete's version (a duplicate everywhere),
        // and the clock moves at most a little past the event
        assertThat(again.delete(z, later, t(NOW - 19, 1)).version()).isEqualTo(later);
        assertThat(again.clock()).isEqualTo(t(NOW - 19 + PeerLimits.OBSERVE_AHEAD_SECONDS, 0));
        assertThat(again.write(X, local("x1"), t(NOW - 18, 1), true).version().time())
                .isEqualTo(t(NOW - 19 + PeerLimits.OBSERVE_AHEAD_SECONDS, 1));
        // without a later tombstone: exactly the labels of the first time
        OriginLabeler third = new OriginLabeler("A", clock(t(NOW - 30, 1)));
        third.write(y, OriginDetector.detect(new PeerStamp(later, ContentHash.of(yNow), null).applyTo(yNow), s -> true), t(NOW - 20, 1), false);
        assertThat(third.delete(z, null, t(NOW - 19, 1)).version()).isEqualTo(deleteZ);
        assertThat(third.write(X, local("x1"), t(NOW - 18, 1), true).version()).isEqualTo(writeX);
    }
}
