package dev.tideline.source;

import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;

/**
 * "Every document whose {@code _id} sorts after this one", for resumable copies in {@code _id} order.
 * A {@code $gt} only matches values of the same type bracket, so ids of the brackets that sort later
 * (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/) are added with
 * {@code $type}: a collection with mixed id types is still copied whole.
 */
public final class IdOrder {
    /**
     * Type brackets in MongoDB's comparison order, as $type aliases. The deprecated symbol type is left
     * out (mongo-java-server refuses its alias, and symbol ids are not produced by current drivers):
     * symbol-typed ids after a numeric one are not copied by a resumed backfill.
     */
    private static final List<List<String>> BRACKETS = List.of(
            List.of("minKey"), List.of("null"), List.of("int", "long", "double", "decimal"), List.of("string"),
            List.of("object"), List.of("array"), List.of("binData"), List.of("objectId"), List.of("bool"), List.of("date"),
            List.of("timestamp"), List.of("regex"), List.of("maxKey"));

    private IdOrder() {
    }

    /** The query for ids after {@code lastId}; an empty document when {@code lastId} is null (from the start). */
    public static BsonDocument after(BsonValue lastId) {
        if (lastId == null) {
            return new BsonDocument();
        }
        int bracket = bracketOf(lastId.getBsonType());
        List<BsonValue> later = new ArrayList<>();
        for (int i = bracket + 1; i < BRACKETS.size(); i++) {
            BRACKETS.get(i).forEach(alias -> later.add(new BsonString(alias)));
        }
        BsonDocument gt = new BsonDocument("_id", new BsonDocument("$gt", lastId));
        if (later.isEmpty()) {
            return gt;
        }
        BsonDocument laterTypes = new BsonDocument("_id", new BsonDocument("$type", new BsonArray(later)));
        return new BsonDocument("$or", new BsonArray(List.of(gt, laterTypes)));
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

    static int bracketOf(BsonType type) {
        return switch (type) {
            case MIN_KEY -> 0;
            case NULL, UNDEFINED -> 1;
            case INT32, INT64, DOUBLE, DECIMAL128 -> 2;
            case SYMBOL, STRING -> 3;
            case DOCUMENT -> 4;
            case ARRAY -> 5;
            case BINARY -> 6;
            case OBJECT_ID -> 7;
            case BOOLEAN -> 8;
            case DATE_TIME -> 9;
            case TIMESTAMP -> 10;
            case REGULAR_EXPRESSION -> 11;
            case MAX_KEY -> 12;
            default -> 12;
        };
    }
}
