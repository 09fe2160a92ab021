package dev.tideline.source.scan;

import dev.tideline.mongo.BsonOrder;
import org.bson.BsonValue;

/**
 * A position in a {@code (value, _id)} ordering: the scan's {@code (key value, _id)} or the delete
 * markers' {@code (deletedAt, marker _id)}. {@code id} null means "from this value on, inclusive":
 * used for starting points (initial sync, lookback) where no document has been read yet.
 */
public record ScanCursor(BsonValue value, BsonValue id) {
    public ScanCursor {
        if (value == null && id != null) {
            throw new IllegalArgumentException("a scan cursor with an _id needs a value, got id " + id);
        }
    }

    /** The cursor right after a document read at {@code (value, id)}. */
    public static ScanCursor after(BsonValue value, BsonValue id) {
        return new ScanCursor(value, id);
    }

    /** The cursor that includes every document whose value is {@code >= value}. */
    public static ScanCursor from(BsonValue value) {
        return new ScanCursor(value, null);
    }

    /** A cursor, or null when {@code value} is null (nothing read yet: from the beginning). */
    static ScanCursor ofNullable(BsonValue value, BsonValue id) {
        return value == null ? null : new ScanCursor(value, id);
    }

    /** True when {@code (value, id)} comes strictly after {@code cursor} in {@code (value, _id)} order (MongoDB's). */
    static boolean isAfter(BsonValue value, BsonValue id, ScanCursor cursor) {
        if (cursor == null) {
            return true;
        }
        int c = BsonOrder.compare(value, cursor.value());
        if (c != 0) {
            return c > 0;
        }
        return cursor.id() == null || BsonOrder.compare(id, cursor.id()) > 0;
    }
}
