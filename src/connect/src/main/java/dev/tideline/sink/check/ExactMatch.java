package dev.tideline.sink.check;

import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Filters that match by value only, for every filter the sink sends with a value taken from a record.
 *
 * <p>{@code {field: {$eq: v}}} rather than {@code {field: v}}: the implicit form reads a regular
 * expression as a pattern and a document whose first field starts with {@code $} as operators, while
 * {@code $eq} compares its argument as a value (https://www.mongodb.com/docs/manual/reference/operator/query/eq/,
 * "Security Implications": use the explicit form with user-supplied input). {@code $in} has no explicit
 * form: it matches regular expressions as patterns and arrays by element, and refuses a document with a
 * {@code $}-prefixed first field ("cannot nest $ under $in";
 * https://www.mongodb.com/docs/manual/reference/operator/query/in/), so {@link #idIn} takes only values
 * {@link IdRules} accepts, for which it is plain equality.
 */
public final class ExactMatch {
    private ExactMatch() {
    }

    /** {@code {field: {$eq: value}}}. */
    public static BsonDocument eq(String field, BsonValue value) {
        return new BsonDocument(field, new BsonDocument("$eq", value));
    }

    /**
     * {@code {_id: {$in: [...]}}}.
     *
     * @throws IllegalArgumentException for an id that {@link IdRules} refuses (the decoder refuses such
     *                                  records, so this means a bug or data written by something else)
     */
    public static BsonDocument idIn(List<BsonValue> ids) {
        BsonArray values = new BsonArray(new java.util.ArrayList<>(ids.size()));
        for (BsonValue id : ids) {
            IdRules.problem(id).ifPresent(p -> {
                throw new IllegalArgumentException("not an exact-match value: " + p);
            });
            values.add(id);
        }
        return new BsonDocument("_id", new BsonDocument("$in", values));
    }
}
