package dev.tideline.source.scan;

import dev.tideline.source.config.CaptureSettings.InitialSync;
import java.time.Instant;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The queries of the date scan, as pure functions of a cursor: no I/O, so every shape is
 * unit-tested. The scan reads {@code (key > v) or (key = v and _id > id)} in {@code (key, _id)}
 * order: the {@code _id} tie-breaker is what keeps documents sharing one key value from being
 * skipped or read twice across batches and restarts.
 */
public final class ScanQueries {
    /** Delete-marker fields: {@code {coll: <collection name>, docId: <deleted _id>, deletedAt: <date>}}. */
    public static final String MARKER_COLL = "coll";
    public static final String MARKER_DOC_ID = "docId";
    public static final String MARKER_DELETED_AT = "deletedAt";
    static final String ID = "_id";

    private ScanQueries() {
    }

    /**
     * The documents after {@code cursor} that pass the user's filter.
     *
     * <ul>
     *   <li>cursor null: every document with a key (missing or null keys are not visible to the scan:
     *       they would sort first and leave a null in the cursor, which reads as "from the beginning"
     *       again and would replay them forever);</li>
     *   <li>cursor without an id: {@code key >= v} (a starting point or a lookback window);</li>
     *   <li>otherwise {@code (key > v) or (key = v and _id > id)}.</li>
     * </ul>
     */
    public static BsonDocument incremental(String key, ScanCursor cursor, BsonDocument filter) {
        return and(filter, after(key, cursor));
    }

    /** {@code {key: 1, _id: 1}}: the order the scan reads and the index it needs. */
    public static BsonDocument sort(String key) {
        BsonDocument sort = new BsonDocument(key, new BsonInt32(1));
        if (!ID.equals(key)) {
            sort.append(ID, new BsonInt32(1));
        }
        return sort;
    }

    /** {@code {key: -1, _id: -1}}: for finding the current maximum ({@code initial.sync = latest}). */
    public static BsonDocument sortDescending(String key) {
        BsonDocument sort = new BsonDocument(key, new BsonInt32(-1));
        if (!ID.equals(key)) {
            sort.append(ID, new BsonInt32(-1));
        }
        return sort;
    }

    /** Documents the scan cannot see: key missing or null ({@code {key: null}} matches both). */
    public static BsonDocument keyMissing(String key) {
        return new BsonDocument(key, BsonNull.VALUE);
    }

    /**
     * Where a pass starts reading: the cursor rewound by {@code lookbackMs} for date keys, WITHOUT
     * the id, so the whole window is re-read from its first document and a write whose key landed
     * behind the cursor (clock skew, a long transaction) is still found. Numbers and strings have
     * no notion of "milliseconds behind": their cursor is returned unchanged.
     */
    public static ScanCursor lookback(ScanCursor cursor, long lookbackMs) {
        if (cursor == null || lookbackMs <= 0 || !cursor.value().isDateTime()) {
            return cursor;
        }
        return ScanCursor.from(new BsonDateTime(cursor.value().asDateTime().getValue() - lookbackMs));
    }

    /**
     * The delete markers of one collection after {@code cursor}:
     * {@code {coll: name} AND ((deletedAt > t) or (deletedAt = t and _id > markerId))}.
     */
    public static BsonDocument deleteMarkers(String collection, ScanCursor cursor) {
        BsonDocument ofCollection = new BsonDocument(MARKER_COLL, new BsonString(collection));
        BsonDocument after = after(MARKER_DELETED_AT, cursor);
        return and(ofCollection, after);
    }

    /** {@code {deletedAt: 1, _id: 1}}. */
    public static BsonDocument deleteMarkerSort() {
        return sort(MARKER_DELETED_AT);
    }

    /** {@code {coll: 1, deletedAt: 1, _id: 1}}: the marker collection's index. */
    public static BsonDocument deleteMarkerIndex() {
        return new BsonDocument(MARKER_COLL, new BsonInt32(1)).append(MARKER_DELETED_AT, new BsonInt32(1)).append(ID, new BsonInt32(1));
    }

    /**
     * The cursor a collection without a stored offset starts from.
     *
     * @param now    the current time (the server's, where known): {@code skip} starts there
     * @param latest the current maximum {@code (key, _id)}, found by the caller with one
     *               {@link #sortDescending} find; null when the collection is empty or the kind is
     *               not {@code latest}
     * @return null for "from the beginning"
     */
    public static ScanCursor initialCursor(InitialSync initialSync, Instant now, ScanCursor latest) {
        Objects.requireNonNull(initialSync, "initialSync");
        switch (initialSync.kind()) {
            case FULL:
                return null;
            case SKIP:
                return ScanCursor.from(new BsonDateTime(Objects.requireNonNull(now, "now").toEpochMilli()));
            case LATEST:
                // An empty collection has no maximum: everything that arrives is new.
                return latest;
            case DATE:
                return ScanCursor.from(new BsonDateTime(initialSync.at().toEpochMilli()));
            default:
                throw new IllegalArgumentException("unknown initial sync " + initialSync);
        }
    }

    private static BsonDocument after(String key, ScanCursor cursor) {
        if (cursor == null) {
            return new BsonDocument(key, new BsonDocument("$ne", BsonNull.VALUE));
        }
        if (cursor.id() == null) {
            return new BsonDocument(key, new BsonDocument("$gte", cursor.value()));
        }
        BsonDocument greater = new BsonDocument(key, new BsonDocument("$gt", cursor.value()));
        if (ID.equals(key)) {
            return greater; // scanning by _id itself: no ties to break
        }
        BsonDocument tie = new BsonDocument(key, cursor.value()).append(ID, new BsonDocument("$gt", cursor.id()));
        return new BsonDocument("$or", new BsonArray(java.util.List.of(greater, tie)));
    }

    private static BsonDocument and(BsonDocument filter, BsonDocument condition) {
        if (filter == null || filter.isEmpty()) {
            return condition;
        }
        // $and rather than merging fields: the user's filter may itself use the key or $or.
        return new BsonDocument("$and", new BsonArray(java.util.List.<BsonValue>of(filter, condition)));
    }
}
