package dev.tideline.mongo;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Whether a document matches a MongoDB query filter, for the operators whose meaning is plain
 * comparison (https://www.mongodb.com/docs/manual/reference/operator/query/): field equality,
 * {@code $eq $ne $gt $gte $lt $lte $in $nin $exists $not}, and {@code $and $or $nor}. Pure.
 *
 * <p>As MongoDB: a dotted path reaches into embedded documents and through arrays (any element), a
 * condition on an array field holds when it holds for the array or for one of its elements, {@code null}
 * equals a missing field, and comparisons ({@code $gt}...) only hold within one type bracket
 * ({@link BsonOrder}), so {@code {a: {$gt: 5}}} never matches a string. Anything else ({@code $regex},
 * {@code $elemMatch}, {@code $type}...) is not {@link #evaluable}: a caller must not guess it.
 */
public final class QueryMatcher {
    private static final Set<String> COMPARISONS = Set.of("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$not");

    private QueryMatcher() {
    }

    /** Whether {@link #matches} can judge every condition of {@code filter}. */
    public static boolean evaluable(BsonDocument filter) {
        for (Map.Entry<String, BsonValue> e : filter.entrySet()) {
            String key = e.getKey();
            if (key.equals("$and") || key.equals("$or") || key.equals("$nor")) {
                if (!e.getValue().isArray()) {
                    return false;
                }
                for (BsonValue part : e.getValue().asArray()) {
                    if (!part.isDocument() || !evaluable(part.asDocument())) {
                        return false;
                    }
                }
            } else if (key.startsWith("$") || e.getValue().isRegularExpression()
                    || (isOperators(e.getValue()) && !operatorsEvaluable(e.getValue().asDocument()))) {
                return false;
            }
        }
        return true;
    }

    private static boolean operatorsEvaluable(BsonDocument ops) {
        for (Map.Entry<String, BsonValue> op : ops.entrySet()) {
            if (!COMPARISONS.contains(op.getKey())) {
                return false;
            }
            BsonValue arg = op.getValue();
            if ((op.getKey().equals("$in") || op.getKey().equals("$nin")) && !arg.isArray()) {
                return false;
            }
            if (op.getKey().equals("$not") && !(isOperators(arg) && operatorsEvaluable(arg.asDocument()))) {
                return false;
            }
            if (arg.isRegularExpression()) {
                return false; // {$eq: /x/} is equality, {$in: [/x/]} a pattern: left to the server
            }
            if (arg.isArray() && arg.asArray().stream().anyMatch(BsonValue::isRegularExpression)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code doc} matches {@code filter}; call only where {@link #evaluable} holds. */
    public static boolean matches(BsonDocument filter, BsonDocument doc) {
        for (Map.Entry<String, BsonValue> e : filter.entrySet()) {
            String key = e.getKey();
            boolean holds = switch (key) {
                case "$and" -> e.getValue().asArray().stream().allMatch(p -> matches(p.asDocument(), doc));
                case "$or" -> e.getValue().asArray().stream().anyMatch(p -> matches(p.asDocument(), doc));
                case "$nor" -> e.getValue().asArray().stream().noneMatch(p -> matches(p.asDocument(), doc));
                default -> field(values(doc, key), e.getValue());
            };
            if (!holds) {
                return false;
            }
        }
        return true;
    }

    /** A field's condition: a literal (equality) or a document of operators. */
    private static boolean field(List<BsonValue> found, BsonValue condition) {
        if (!isOperators(condition)) {
            return equal(found, condition);
        }
        for (Map.Entry<String, BsonValue> op : condition.asDocument().entrySet()) {
            BsonValue arg = op.getValue();
            boolean holds = switch (op.getKey()) {
                case "$eq" -> equal(found, arg);
                case "$ne" -> !equal(found, arg);
                case "$in" -> arg.asArray().stream().anyMatch(v -> equal(found, v));
                case "$nin" -> arg.asArray().stream().noneMatch(v -> equal(found, v));
                case "$exists" -> !found.isEmpty() == truthy(arg);
                case "$not" -> !field(found, arg);
                default -> compared(found, arg, op.getKey());
            };
            if (!holds) {
                return false;
            }
        }
        return true;
    }

    private static boolean equal(List<BsonValue> found, BsonValue wanted) {
        if (wanted.isNull() && found.isEmpty()) {
            return true;
        }
        return candidates(found).stream().anyMatch(v -> BsonOrder.bracket(v.getBsonType()) == BsonOrder.bracket(wanted.getBsonType())
                && BsonOrder.compare(v, wanted) == 0);
    }

    private static boolean compared(List<BsonValue> found, BsonValue bound, String op) {
        int bracket = BsonOrder.bracket(bound.getBsonType());
        for (BsonValue v : candidates(found)) {
            if (BsonOrder.bracket(v.getBsonType()) != bracket) {
                continue;
            }
            int c = BsonOrder.compare(v, bound);
            if (switch (op) {
                case "$gt" -> c > 0;
                case "$gte" -> c >= 0;
                case "$lt" -> c < 0;
                default -> c <= 0;
            }) {
                return true;
            }
        }
        return false;
    }

    /** The values a condition is tested on: each value found, and the elements of the arrays among them. */
    private static List<BsonValue> candidates(List<BsonValue> found) {
        List<BsonValue> out = new ArrayList<>(found);
        for (BsonValue v : found) {
            if (v.isArray()) {
                out.addAll(v.asArray().getValues());
            }
        }
        return out;
    }

    /** The values at a dotted path, through embedded documents and arrays (an array element by index too); empty when missing. */
    static List<BsonValue> values(BsonValue at, String path) {
        List<BsonValue> out = new ArrayList<>();
        collect(at, path.split("\\.", -1), 0, out);
        return out;
    }

    private static void collect(BsonValue at, String[] parts, int i, List<BsonValue> out) {
        if (i == parts.length) {
            out.add(at);
            return;
        }
        if (at.isDocument()) {
            BsonValue next = at.asDocument().get(parts[i]);
            if (next != null) {
                collect(next, parts, i + 1, out);
            }
        } else if (at.isArray()) {
            BsonArray a = at.asArray();
            if (parts[i].chars().allMatch(Character::isDigit) && !parts[i].isEmpty()) {
                int index = Integer.parseInt(parts[i]);
                if (index < a.size()) {
                    collect(a.get(index), parts, i + 1, out);
                }
            }
            for (BsonValue element : a) {
                if (element.isDocument()) {
                    collect(element, parts, i, out);
                }
            }
        }
    }

    private static boolean isOperators(BsonValue v) {
        return v.isDocument() && !v.asDocument().isEmpty() && v.asDocument().getFirstKey().startsWith("$");
    }

    private static boolean truthy(BsonValue v) {
        if (v.isBoolean()) {
            return v.asBoolean().getValue();
        }
        return !(v.isNull() || (v.isNumber() && v.asNumber().doubleValue() == 0));
    }
}
