package dev.tideline.source.scan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.source.config.CaptureSettings.InitialSync;
import java.time.Instant;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class ScanQueriesTest {
    private static final BsonDateTime T = new BsonDateTime(1_700_000_000_000L);
    private static final BsonObjectId ID = new BsonObjectId(new ObjectId("65a000000000000000000001"));

    @Test
    void cursorWithIdReadsLaterKeysAndLaterIdsOnTheSameKey() {
        BsonDocument q = ScanQueries.incremental("updatedAt", ScanCursor.after(T, ID), new BsonDocument());
        assertThat(q).isEqualTo(BsonDocument.parse(
                "{$or: [{updatedAt: {$gt: {$date: 1700000000000}}},"
                        + " {updatedAt: {$date: 1700000000000}, _id: {$gt: {$oid: '65a000000000000000000001'}}}]}"));
    }

    @Test
    void userFilterIsAndedWithTheCursor() {
        BsonDocument filter = BsonDocument.parse("{status: 'paid'}");
        BsonDocument q = ScanQueries.incremental("updatedAt", ScanCursor.after(T, ID), filter);
        assertThat(q.getArray("$and")).hasSize(2);
        assertThat(q.getArray("$and").get(0)).isEqualTo(filter);
        assertThat(q.getArray("$and").get(1).asDocument().containsKey("$or")).isTrue();
    }

    @Test
    void noCursorReadsTheFilterRestrictedToDocumentsWithAKey() {
        assertThat(ScanQueries.incremental("updatedAt", null, new BsonDocument()))
                .isEqualTo(BsonDocument.parse("{updatedAt: {$ne: null}}"));
        assertThat(ScanQueries.incremental("updatedAt", null, BsonDocument.parse("{a: 1}")))
                .isEqualTo(BsonDocument.parse("{$and: [{a: 1}, {updatedAt: {$ne: null}}]}"));
    }

    @Test
    void cursorWithoutIdIsInclusive() {
        assertThat(ScanQueries.incremental("ts", ScanCursor.from(new BsonInt64(42)), null))
                .isEqualTo(BsonDocument.parse("{ts: {$gte: {$numberLong: '42'}}}"));
    }

    @Test
    void scanningByIdNeedsNoTieBreaker() {
        assertThat(ScanQueries.incremental("_id", ScanCursor.after(ID, ID), null))
                .isEqualTo(BsonDocument.parse("{_id: {$gt: {$oid: '65a000000000000000000001'}}}"));
        assertThat(ScanQueries.sort("_id")).isEqualTo(BsonDocument.parse("{_id: 1}"));
    }

    @Test
    void sortIsKeyThenId() {
        assertThat(ScanQueries.sort("updatedAt").toJson()).isEqualTo("{\"updatedAt\": 1, \"_id\": 1}");
        assertThat(ScanQueries.sortDescending("updatedAt").toJson()).isEqualTo("{\"updatedAt\": -1, \"_id\": -1}");
        assertThat(ScanQueries.deleteMarkerSort().toJson()).isEqualTo("{\"deletedAt\": 1, \"_id\": 1}");
        assertThat(ScanQueries.deleteMarkerIndex().toJson()).isEqualTo("{\"coll\": 1, \"deletedAt\": 1, \"_id\": 1}");
    }

    @Test
    void lookbackRewindsDateKeysAndDropsTheId() {
        ScanCursor rewound = ScanQueries.lookback(ScanCursor.after(T, ID), 5_000);
        assertThat(rewound).isEqualTo(ScanCursor.from(new BsonDateTime(T.getValue() - 5_000)));
    }

    @Test
    void lookbackLeavesNumbersStringsAndNoLookbackAlone() {
        ScanCursor numeric = ScanCursor.after(new BsonInt64(100), ID);
        ScanCursor text = ScanCursor.after(new BsonString("2024-01-01"), ID);
        ScanCursor date = ScanCursor.after(T, ID);
        assertThat(ScanQueries.lookback(numeric, 5_000)).isSameAs(numeric);
        assertThat(ScanQueries.lookback(text, 5_000)).isSameAs(text);
        assertThat(ScanQueries.lookback(date, 0)).isSameAs(date);
        assertThat(ScanQueries.lookback(null, 5_000)).isNull();
    }

    @Test
    void deleteMarkersOfOneCollectionAfterTheMarkerCursor() {
        BsonObjectId marker = new BsonObjectId(new ObjectId("65a0000000000000000000ff"));
        assertThat(ScanQueries.deleteMarkers("orders", ScanCursor.after(T, marker))).isEqualTo(BsonDocument.parse(
                "{$and: [{coll: 'orders'}, {$or: [{deletedAt: {$gt: {$date: 1700000000000}}},"
                        + " {deletedAt: {$date: 1700000000000}, _id: {$gt: {$oid: '65a0000000000000000000ff'}}}]}]}"));
        assertThat(ScanQueries.deleteMarkers("orders", null))
                .isEqualTo(BsonDocument.parse("{$and: [{coll: 'orders'}, {deletedAt: {$ne: null}}]}"));
    }

    @Test
    void initialCursors() {
        Instant now = Instant.ofEpochMilli(1_700_000_123_000L);
        ScanCursor latest = ScanCursor.after(T, ID);
        assertThat(ScanQueries.initialCursor(new InitialSync(InitialSync.Kind.FULL, null), now, null)).isNull();
        assertThat(ScanQueries.initialCursor(new InitialSync(InitialSync.Kind.SKIP, null), now, null))
                .isEqualTo(ScanCursor.from(new BsonDateTime(1_700_000_123_000L)));
        assertThat(ScanQueries.initialCursor(new InitialSync(InitialSync.Kind.LATEST, null), now, latest)).isSameAs(latest);
        assertThat(ScanQueries.initialCursor(new InitialSync(InitialSync.Kind.LATEST, null), now, null)).isNull();
        assertThat(ScanQueries.initialCursor(new InitialSync(InitialSync.Kind.DATE, Instant.parse("2024-05-01T00:00:00Z")), now, null))
                .isEqualTo(ScanCursor.from(new BsonDateTime(Instant.parse("2024-05-01T00:00:00Z").toEpochMilli())));
    }
}
