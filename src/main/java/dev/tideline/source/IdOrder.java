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
        if (lastId == null) {
            return new BsonDocument();
        }
        int bracket = BsonOrder.bracket(lastId.getBsonType());
        List<BsonValue> later = new ArrayList<>();
        for (int i = bracket + 1; i < BsonOrder.BRACKETS; i++) {
            BsonOrder.typeAliases(i).forEach(alias -> later.add(new BsonString(alias)));
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
}
