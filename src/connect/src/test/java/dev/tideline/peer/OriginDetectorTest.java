package dev.tideline.peer;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class OriginDetectorTest {
    private static final Version V = new Version(new BsonTimestamp(100, 3), "B");

    private static BsonDocument stamped(BsonDocument content) {
        return new PeerStamp(V, ContentHash.of(content), null).applyTo(content);
    }

    @Test
    void aDocumentAsThePeerSinkWroteItHasThePeersOrigin() {
        BsonDocument d = stamped(new BsonDocument("_id", new BsonInt32(1)).append("a", new BsonString("x")));
        OriginDetector.Detected det = OriginDetector.detect(d, s -> true);
        assertThat(det.local()).isFalse();
        assertThat(det.origin("A")).isEqualTo("B");
        assertThat(det.stamp().version()).isEqualTo(V);
    }

    @Test
    void aDocumentChangedAfterTheStampIsLocalAndKeepsTheStaleStampAsItsBase() {
        BsonDocument d = stamped(new BsonDocument("_id", new BsonInt32(1)).append("a", new BsonString("x")));
        d.put("a", new BsonString("changed by the application"));
        OriginDetector.Detected det = OriginDetector.detect(d, s -> true);
        assertThat(det.local()).isTrue();
        assertThat(det.origin("A")).isEqualTo("A");
        assertThat(det.stale().version()).isEqualTo(V);
    }

    @Test
    void anUnstampedOrMalformedStampIsLocal() {
        assertThat(OriginDetector.detect(new BsonDocument("_id", new BsonInt32(1)), s -> true).origin("A")).isEqualTo("A");
        BsonDocument odd = new BsonDocument("_id", new BsonInt32(1)).append("_tl", new BsonString("not a stamp"));
        assertThat(OriginDetector.detect(odd, s -> true).local()).isTrue();
        assertThat(OriginDetector.detect(odd, s -> true).stale()).isNull();
    }

    @Test
    void versionTextRoundTripsAndOrdersByTimeThenOrigin() {
        assertThat(Version.parse(V.toText())).isEqualTo(V);
        assertThat(new Version(new BsonTimestamp(100, 4), "A")).isGreaterThan(V);
        assertThat(new Version(new BsonTimestamp(100, 3), "C")).isGreaterThan(V);
        assertThat(new Version(new BsonTimestamp(99, 9), "Z")).isLessThan(V);
    }

    @Test
    void theLogicalClockLabelsLocalWritesAboveEverythingSeen() {
        LogicalClock clock = new LogicalClock();
        clock.observe(new BsonTimestamp(100, 50));
        assertThat(clock.label(new BsonTimestamp(100, 2), null)).isEqualTo(new BsonTimestamp(100, 51));
        assertThat(clock.label(new BsonTimestamp(101, 1), null)).isEqualTo(new BsonTimestamp(101, 1));
        assertThat(clock.label(new BsonTimestamp(101, 1), new BsonTimestamp(200, 0))).isEqualTo(new BsonTimestamp(200, 1));
    }

    private static final StampKeys KEYS = new StampKeys("a shared secret of the link, 32+ chars", null);
    private static final dev.tideline.event.Namespace NS = dev.tideline.event.Namespace.parse("db.docs");

    /** An application copying another cluster's stamp (content and all) into a document: local, like any write. */
    @Test
    void aStampThatDoesNotAuthenticateHereIsAnApplicationsWrite() {
        BsonDocument content = new BsonDocument("_id", new BsonInt32(1)).append("a", new BsonString("x"));
        PeerStamp onB = new PeerStamp(V, ContentHash.of(content), null).signed(KEYS, "B", NS, new BsonInt32(1));
        BsonDocument copied = onB.applyTo(content);
        OriginDetector.Detected onA = OriginDetector.detect(copied, s -> s.authentic(KEYS, "A", NS, new BsonInt32(1)));
        assertThat(onA.local()).isTrue();
        assertThat(onA.stale()).as("not a base either: it was never this document's version here").isNull();
        assertThat(onA.unverified()).isEqualTo(onB);
        assertThat(OriginDetector.detect(copied, s -> s.authentic(KEYS, "B", NS, new BsonInt32(1))).local()).as("on B it is B's").isFalse();
        assertThat(OriginDetector.detect(copied, s -> s.authentic(KEYS, "B", NS, new BsonInt32(2))).local()).as("another _id").isTrue();
        assertThat(OriginDetector.detect(copied, s -> s.authentic(new StampKeys("another secret entirely, 32 chars", null), "B", NS,
                new BsonInt32(1))).local()).as("another key").isTrue();
        // a stamp without MAC (as written before the link had a key, or forged by hand)
        assertThat(OriginDetector.detect(stamped(content), s -> s.authentic(KEYS, "B", NS, new BsonInt32(1))).local()).isTrue();
    }

    @Test
    void aRotatedKeyStillVerifiesStampsOfThePreviousOne() {
        BsonDocument content = new BsonDocument("_id", new BsonInt32(1)).append("a", new BsonString("x"));
        StampKeys old = new StampKeys("the old secret of the link, 32 chars", null);
        StampKeys rotating = new StampKeys("the new secret of the link, 32 chars", "the old secret of the link, 32 chars");
        PeerStamp s = new PeerStamp(V, ContentHash.of(content), null).signed(old, "A", NS, new BsonInt32(1));
        assertThat(s.authentic(rotating, "A", NS, new BsonInt32(1))).isTrue();
        assertThat(s.authentic(new StampKeys("the new secret of the link, 32 chars", null), "A", NS, new BsonInt32(1))).isFalse();
        assertThat(rotating.sign(s.bound("A", NS, new BsonInt32(1))).keyId()).isNotEqualTo(old.keyId());
    }
}
