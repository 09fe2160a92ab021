package dev.tideline.source.stream;

import dev.tideline.mongo.QueryMatcher;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Turns a filter on documents into a {@code $match} on change-stream events: the event's fields are not
 * the document's, so every field condition is moved under {@code fullDocument.}. Deletes (and DDL
 * events) have no post-image and always pass: a delete of a filtered-out document becomes a harmless
 * no-op delete downstream. Where {@link QueryMatcher} can judge the filter, updates and replaces pass too:
 * one whose document left the filter is sent as a delete (so it leaves the destination).
 */
public final class FilterRewriter {
    private static final List<String> LOGICAL = List.of("$and", "$or", "$nor");
    private static final List<String> UNSUPPORTED = List.of("$where", "$text", "$expr", "$jsonSchema", "$comment");
    private static final String PREFIX = "fullDocument.";

    private FilterRewriter() {
    }

    /** The change-stream pipeline stage for a filter, or null when the filter is empty. */
    public static BsonDocument matchStage(BsonDocument filter) {
        if (filter == null || filter.isEmpty()) {
            return null;
        }
        // updates and replaces pass whole where the source can tell that their document left the filter: it sends
        // those as deletes (FilterExits); elsewhere only the server can judge the filter
        BsonDocument passThrough = QueryMatcher.evaluable(filter)
                ? new BsonDocument("operationType", new BsonDocument("$ne", new BsonString("insert")))
                : new BsonDocument("operationType", new BsonDocument("$nin",
                        new BsonArray(List.of(new BsonString("insert"), new BsonString("update"), new BsonString("replace")))));
        BsonDocument onDocument = rewrite(filter);
        return new BsonDocument("$match", new BsonDocument("$or", new BsonArray(List.of(passThrough, onDocument))));
    }

    /** The filter with every field path prefixed by {@code fullDocument.}. */
    public static BsonDocument rewrite(BsonDocument filter) {
        BsonDocument out = new BsonDocument();
        for (Map.Entry<String, BsonValue> e : filter.entrySet()) {
            String key = e.getKey();
            if (LOGICAL.contains(key)) {
                if (!e.getValue().isArray()) {
                    throw new IllegalArgumentException(key + " needs an array of conditions");
                }
                BsonArray parts = new BsonArray();
                for (BsonValue part : e.getValue().asArray()) {
                    if (!part.isDocument()) {
                        throw new IllegalArgumentException(key + " needs an array of documents");
                    }
                    parts.add(rewrite(part.asDocument()));
                }
                out.append(key, parts);
            } else if (key.startsWith("$")) {
                throw new IllegalArgumentException("operator " + key + " is not supported in a capture filter"
                        + (UNSUPPORTED.contains(key) ? "" : " at the top level") + ": use field conditions, $and, $or, $nor");
            } else {
                out.append(PREFIX + key, e.getValue());
            }
        }
        return out;
    }

    /** Checks a filter without rewriting it; the message says what is wrong. */
    public static String problem(BsonDocument filter) {
        try {
            rewrite(filter);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
