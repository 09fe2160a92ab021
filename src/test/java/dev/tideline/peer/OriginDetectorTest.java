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
        OriginDetector.Detected det = OriginDetector.detect(d);
        assertThat(det.local()).isFalse();
        assertThat(det.origin("A")).isEqualTo("B");
        assertThat(det.stamp().version()).isEqualTo(V);
    }

    @Test
    void aDocumentChangedAfterTheStampIsLocalAndKeepsTheStaleStampAsItsBase() {
        BsonDocument d = stamped(new BsonDocument("_id", new BsonInt32(1)).append("a", new BsonString("x")));
        d.put("a", new BsonString("changed by the application"));
        OriginDetector.Detected det = OriginDetector.detect(d);
        assertThat(det.local()).isTrue();
        assertThat(det.origin("A")).isEqualTo("A");
        assertThat(det.stale().version()).isEqualTo(V);
    }

    @Test
    void anUnstampedOrMalformedStampIsLocal() {
        assertThat(OriginDetector.detect(new BsonDocument("_id", new BsonInt32(1))).origin("A")).isEqualTo("A");
        BsonDocument odd = new BsonDocument("_id", new BsonInt32(1)).append("_tl", new BsonString("not a stamp"));
        assertThat(OriginDetector.detect(odd).local()).isTrue();
        assertThat(OriginDetector.detect(odd).stale()).isNull();
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
}
