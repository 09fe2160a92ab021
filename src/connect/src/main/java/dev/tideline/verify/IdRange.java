package dev.tideline.verify;

import dev.tideline.mongo.BsonOrder;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * A range of {@code _id}s, {@code (after, upTo]} in MongoDB's order: {@code after == null} starts at
 * the first id, {@code upTo == null} runs to the last. The unit verify compares, and the unit it
 * reports, so a repair can re-copy exactly this range.
 *
 * <p>As a query: {@code $gt}/{@code $lte} only match ids of the bound's own type bracket
 * (https://www.mongodb.com/docs/manual/reference/method/db.collection.find/#type-bracketing), so the
 * brackets that sort entirely inside the range are added with {@code $type}: a collection with mixed
 * id types is still covered whole.
 */
public record IdRange(BsonValue after, BsonValue upTo) {
    public static final IdRange ALL = new IdRange(null, null);

    /** Whether {@code id} lies in this range, by {@link BsonOrder}. */
    public boolean contains(BsonValue id) {
        return (after == null || BsonOrder.compare(id, after) > 0) && (upTo == null || BsonOrder.compare(id, upTo) <= 0);
    }

    /** The range's filter on {@code _id}; an empty document for {@link #ALL}. */
    public BsonDocument filter() {
        BsonDocument lower = after == null ? null : bound("$gt", after, BsonOrder.bracket(after.getBsonType()) + 1, BsonOrder.BRACKETS);
        BsonDocument upper = upTo == null ? null : bound("$lte", upTo, 0, BsonOrder.bracket(upTo.getBsonType()));
        if (lower == null && upper == null) {
            return new BsonDocument();
        }
        if (lower == null || upper == null) {
            return lower == null ? upper : lower;
        }
        return new BsonDocument("$and", new BsonArray(List.of(lower, upper)));
    }

    /**
     * {@code _id <op> value}, or {@code _id} of a type in brackets {@code [fromBracket, toBracket)}. A
     * bound whose bracket holds that one value (MinKey, null, MaxKey) is expressed by brackets alone:
     * nothing in it is greater, all of it is lower or equal.
     */
    private static BsonDocument bound(String op, BsonValue value, int fromBracket, int toBracket) {
        boolean singleValued = switch (value.getBsonType()) {
            case MIN_KEY, NULL, UNDEFINED, MAX_KEY -> true;
            default -> false;
        };
        int to = singleValued && op.equals("$lte") ? toBracket + 1 : toBracket;
        List<BsonValue> types = new ArrayList<>();
        for (int i = fromBracket; i < to; i++) {
            BsonOrder.typeAliases(i).forEach(alias -> types.add(new BsonString(alias)));
        }
        BsonDocument byType = new BsonDocument("_id", new BsonDocument("$type", new BsonArray(types)));
        if (singleValued) {
            // nothing after MaxKey: a $type list that matches no document
            return types.isEmpty() ? new BsonDocument("_id", new BsonDocument("$in", new BsonArray())) : byType;
        }
        BsonDocument compare = new BsonDocument("_id", new BsonDocument(op, value));
        return types.isEmpty() ? compare : new BsonDocument("$or", new BsonArray(List.of(compare, byType)));
    }

    @Override
    public String toString() {
        return "(" + (after == null ? "start" : after.toString()) + ", " + (upTo == null ? "end" : upTo.toString()) + "]";
    }
}
