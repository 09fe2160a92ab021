package dev.tideline.source;

import dev.tideline.mongo.BsonOrder;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * "Every document whose {@code _id} sorts after this one", for resumable copies in {@code _id} order.
 * A {@code $gt} only matches values of the same type bracket, so ids of the brackets that sort later
 * ({@link BsonOrder}) are added with {@code $type}: a collection with mixed id types is still copied
 * whole.
 */
public final class IdOrder {
    private IdOrder() {
    }

    /** The query for ids after {@code lastId}; an empty document when {@code lastId} is null (from the start). */
    public static BsonDocument after(BsonValue lastId) {
        return lastId == null ? new BsonDocument() : bound("$gt", lastId, true);
    }

    /** The query for ids at or after {@code from} in MongoDB's order, across types; empty when null. */
    public static BsonDocument atOrAfter(BsonValue from) {
        return from == null ? new BsonDocument() : bound("$gte", from, true);
    }

    /** The query for ids before {@code to} in MongoDB's order, across types; empty when null. */
    public static BsonDocument before(BsonValue to) {
        return to == null ? new BsonDocument() : bound("$lt", to, false);
    }

    /**
     * A comparison on {@code _id} that also takes the other types on that side: MongoDB compares only
     * within a type bracket ({@code {$gt: 5}} matches no string), so the later (or earlier) brackets are
     * added by {@code $type}.
     */
    private static BsonDocument bound(String op, BsonValue value, boolean laterSide) {
        int bracket = BsonOrder.bracket(value.getBsonType());
        List<BsonValue> others = new ArrayList<>();
        int from = laterSide ? bracket + 1 : 0;
        int to = laterSide ? BsonOrder.BRACKETS : bracket;
        for (int i = from; i < to; i++) {
            BsonOrder.typeAliases(i).forEach(alias -> others.add(new BsonString(alias)));
        }
        BsonDocument cmp = new BsonDocument("_id", new BsonDocument(op, value));
        if (others.isEmpty()) {
            return cmp;
        }
        BsonDocument otherTypes = new BsonDocument("_id", new BsonDocument("$type", new BsonArray(others)));
        return new BsonDocument("$or", new BsonArray(List.of(cmp, otherTypes)));
    }

    /** {@code a AND b}, skipping empty parts. */
    public static BsonDocument and(BsonDocument a, BsonDocument b) {
        if (a == null || a.isEmpty()) {
            return b;
        }
        if (b == null || b.isEmpty()) {
            return a;
        }
        return new BsonDocument("$and", new BsonArray(List.of(a, b)));
    }
}
