package dev.tideline.source.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

public class StreamPositionTest {

    /** A MongoDB 4.2+ shaped token: 0x82, the cluster time's 8 bytes big-endian, then the event's identity. */
    public static BsonDocument token(int seconds, int inc, String rest) {
        return new BsonDocument("_data", new BsonString(String.format("82%08X%08X%s", seconds, inc, rest)));
    }

    @Test
    void aMongoDbTokenSaysItsClusterTime() {
        // a token as MongoDB 6.0 prints it, for an insert at Timestamp(1675848916, 1)
        BsonDocument real = new BsonDocument("_data", new BsonString(
                "8263E36CD4000000012B022C0100296E5A1004A1B7F4F0E7F84B0F8E1F2A1C6B3D4E5F46645F696400646363E36CD4C4D4F1C0D5A3B3E60004"));
        assertThat(StreamPosition.clusterTimeOf(real)).contains(new BsonTimestamp(1675848916, 1));
        assertThat(StreamPosition.afterToken(real, null).clusterTime()).isEqualTo(new BsonTimestamp(1675848916, 1));
        // lower-case hex reads the same
        BsonDocument lower = new BsonDocument("_data", new BsonString(real.getString("_data").getValue().toLowerCase()));
        assertThat(StreamPosition.afterToken(lower, null).compareTo(StreamPosition.afterToken(real, null))).isZero();
    }

    @Test
    void tokensOrderAsEventsHappenedAcrossCollections() {
        List<StreamPosition> inOrder = List.of(
                StreamPosition.atOperationTime(new BsonTimestamp(100, 0)),
                StreamPosition.afterToken(token(100, 1, "2B022C01"), null),
                StreamPosition.afterToken(token(100, 1, "2B022C02"), null), // same transaction, next statement
                StreamPosition.atOperationTime(new BsonTimestamp(100, 2)),
                StreamPosition.afterToken(token(100, 2, "00"), null),
                StreamPosition.afterToken(token(101, 0, "00"), null),
                // from 2038 the seconds no longer fit a signed int: still later
                StreamPosition.afterToken(token(0x80000001, 0, "00"), null));
        List<StreamPosition> shuffled = new ArrayList<>(inOrder);
        Collections.shuffle(shuffled, new java.util.Random(7));
        Collections.sort(shuffled);
        assertThat(shuffled).containsExactlyElementsOf(inOrder);
        assertThat(inOrder.get(1).covers(inOrder.get(2))).isFalse();
        assertThat(inOrder.get(2).covers(inOrder.get(1))).isTrue();
        assertThat(inOrder.get(2).covers(inOrder.get(2))).as("a position has its own event").isTrue();
    }

    @Test
    void anOperationTimeComesBeforeEveryEventOfItsSecondAndAfterEarlierOnes() {
        StreamPosition at = StreamPosition.atOperationTime(new BsonTimestamp(200, 5));
        assertThat(at.covers(StreamPosition.afterToken(token(200, 5, "01"), null))).isFalse();
        assertThat(at.covers(StreamPosition.afterToken(token(200, 4, "FF"), null))).isTrue();
        assertThat(at.covers(StreamPosition.atOperationTime(new BsonTimestamp(200, 5)))).isTrue();
    }

    @Test
    void anUnreadableTokenOrdersByTheClusterTimeStoredWithItAndIsNeverDroppedWithinItsSecond() {
        BsonDocument binData = new BsonDocument("_data", new org.bson.BsonBinary(new byte[] {1, 2, 3}));
        assertThatThrownBy(() -> StreamPosition.afterToken(binData, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cluster time");
        StreamPosition stored = StreamPosition.afterToken(binData, new BsonTimestamp(300, 1));
        StreamPosition sameSecond = StreamPosition.afterToken(token(300, 1, "AA"), null);
        assertThat(stored.covers(sameSecond)).as("not ordered: taken as new").isFalse();
        assertThat(sameSecond.covers(stored)).isFalse();
        assertThat(stored.covers(stored)).isTrue();
        assertThat(stored.covers(StreamPosition.afterToken(token(300, 2, "00"), null))).isFalse();
        assertThat(stored.covers(StreamPosition.afterToken(token(299, 9, "00"), null))).isTrue();
        assertThat(stored.openingPoint()).as("opens at the start of its second").isEqualTo(
                StreamPosition.atOperationTime(new BsonTimestamp(300, 1)));
        assertThat(sameSecond.openingPoint()).isSameAs(sameSecond);
    }

    /**
     * After an event that arrived in fragments the stream opens at the event's cluster time, never at a fragment's
     * token (MongoDB splits again on resume and answers 280 when the split differs), and drops the events up to it:
     * the event itself whether it comes split again or whole (a whole event's token sorts before its fragments').
     */
    @Test
    void aSplitEventOpensAtItsClusterTimeAndCoversItselfSplitOrWhole() {
        StreamPosition split = StreamPosition.afterSplitEvent(token(400, 3, "2B0204"), new BsonTimestamp(400, 3));
        assertThat(split.isSplitEvent()).isTrue();
        assertThat(split.openingPoint()).isEqualTo(StreamPosition.atOperationTime(new BsonTimestamp(400, 3)));
        assertThat(split.covers(StreamPosition.afterToken(token(400, 3, "2B01"), null))).as("an event before it").isTrue();
        assertThat(split.covers(StreamPosition.afterToken(token(400, 3, "2B0204"), null))).as("itself, split again").isTrue();
        assertThat(split.covers(StreamPosition.afterToken(token(400, 3, "2B02"), null))).as("itself, whole now").isTrue();
        assertThat(split.covers(StreamPosition.afterToken(token(400, 3, "2B03"), null))).as("the next event").isFalse();
        assertThat(split.covers(StreamPosition.afterToken(token(400, 4, "00"), null))).isFalse();
        assertThat(StreamPosition.afterToken(token(400, 3, "2B0204"), null).openingPoint().isToken()).isTrue();
    }
}
