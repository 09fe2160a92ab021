package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The {@code _id} values a filter can match, when an equality on {@code _id} bounds it: MongoDB then reads
 * those documents through the {@code _id} index (a point lookup, "IDHACK" or an IXSCAN on {@code _id_}) and
 * examines only them, whatever else the filter asks
 * (https://www.mongodb.com/docs/manual/core/query-plans/, https://www.mongodb.com/docs/manual/reference/explain-results/).
 *
 * <p>Equality forms: {@code {_id: v}}, {@code {_id: {$eq: v}}}, {@code {_id: {$in: [v, ...]}}}, each also
 * beside other fields or inside {@code $and} (at any depth). What is not an equality gives no bound: a regex
 * ({@code {_id: /re/}} is a pattern match, https://www.mongodb.com/docs/manual/reference/operator/query/regex/),
 * an operator document such as {@code {_id: {$gt: v}}}, {@code $or}/{@code $nor}. An array and {@code null} give
 * none either (an array would also match arrays holding it, {@code null} a missing field): MongoDB bounds those
 * too, the stand-in scans them (docs/mongodb-stand-in.md). The bound only chooses which documents are examined;
 * each is still matched against the whole filter, so the answer is the scan's.
 */
final class IdLookup {
    private static final String ID = "_id";

    private IdLookup() {
    }

    /** The candidate {@code _id}s, or null when the filter has no equality on {@code _id} (then it is a scan). */
    static List<Object> candidates(Map<?, ?> filter) {
        if (filter == null) {
            return null;
        }
        List<Object> fewest = filter.containsKey(ID) ? ofCondition(filter.get(ID)) : null;
        if (filter.get("$and") instanceof Collection<?> clauses) {
            for (Object clause : clauses) {
                List<Object> bound = clause instanceof Map<?, ?> m ? candidates(m) : null;
                if (bound != null && (fewest == null || bound.size() < fewest.size())) {
                    fewest = bound;
                }
            }
        }
        return fewest;
    }

    private static List<Object> ofCondition(Object condition) {
        if (condition instanceof Map<?, ?> m && m.keySet().stream().anyMatch(IdLookup::isOperator)) {
            if (!m.keySet().stream().allMatch(IdLookup::isOperator)) {
                return null; // operators mixed with fields: the matcher answers MongoDB's error
            }
            if (m.containsKey("$eq")) {
                // $eq compares its operand as a value, a document whole (https://www.mongodb.com/docs/manual/reference/operator/query/eq/)
                return isValue(m.get("$eq")) ? Collections.singletonList(m.get("$eq")) : null;
            }
            if (m.get("$in") instanceof Collection<?> values && values.stream().allMatch(IdLookup::isValue)) {
                return new ArrayList<>(values); // a regex in $in is a pattern (https://www.mongodb.com/docs/manual/reference/operator/query/in/)
            }
            return null;
        }
        return isValue(condition) ? Collections.singletonList(condition) : null;
    }

    private static boolean isOperator(Object key) {
        return String.valueOf(key).startsWith("$");
    }

    /** A value the {@code _id} index can look up with the matcher's meaning. */
    private static boolean isValue(Object value) {
        return value != null && !(value instanceof Collection<?>) && !BsonRegularExpression.isRegularExpression(value);
    }
}
