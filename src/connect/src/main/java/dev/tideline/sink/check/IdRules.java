package dev.tideline.sink.check;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonValue;

/**
 * Which {@code _id} values the sink accepts from a record. Records are untrusted: an id is put into the
 * filters of writes, deletes and reads, and some values there mean more than themselves. Pure.
 *
 * <ul>
 *   <li>a regular expression: {@code {_id: /x/}} and {@code {_id: {$in: [/x/]}}} match it as a pattern
 *       (https://www.mongodb.com/docs/manual/reference/operator/query/eq/#regex-match-behavior);</li>
 *   <li>an array: {@code $eq} and {@code $in} also match documents holding it as an element
 *       (same page, "Match an Array Value");</li>
 *   <li>a document with a {@code $}-prefixed field at any depth: in an implicit-equality filter it is
 *       an operator ({@code {_id: {$exists: true}}} matches every document), and {@code $in} refuses it;</li>
 *   <li>a field name with a NUL character: BSON cannot encode it.</li>
 * </ul>
 * MongoDB itself stores no array, regex or undefined {@code _id}
 * (https://www.mongodb.com/docs/manual/core/document/#the-_id-field), so a record naming one cannot be
 * a change of a real document. The sink's filters use {@code $eq} as well ({@link ExactMatch}); these
 * rules keep the {@code $in} reads and any value that reaches a filter by another way exact too.
 */
public final class IdRules {
    private IdRules() {
    }

    /** @return why the sink refuses this id, or empty when it matches by value only */
    public static Optional<String> problem(BsonValue id) {
        return problem(id, "_id");
    }

    /** The same rules for any value matched by equality (shard key values); {@code what} names it in the reason. */
    public static Optional<String> problem(BsonValue value, String what) {
        switch (value.getBsonType()) {
            case REGULAR_EXPRESSION:
                return Optional.of(what + " is a regular expression: a filter would match it as a pattern, and MongoDB "
                        + "stores no such _id");
            case ARRAY:
                return Optional.of(what + " is an array: a filter would also match documents holding it as an element, "
                        + "and MongoDB stores no array _id");
            case UNDEFINED:
                return Optional.of(what + " is undefined, which MongoDB does not store as an _id");
            case DOCUMENT:
                return fieldProblem(value, what);
            default:
                return Optional.empty();
        }
    }

    /** Walks a document id without recursion (its depth is bounded before decoding, but the walk need not rely on it). */
    private static Optional<String> fieldProblem(BsonValue root, String what) {
        Deque<Map.Entry<String, BsonValue>> todo = new ArrayDeque<>();
        todo.push(Map.entry(what, root));
        while (!todo.isEmpty()) {
            Map.Entry<String, BsonValue> next = todo.pop();
            BsonValue v = next.getValue();
            if (v.isDocument()) {
                for (Map.Entry<String, BsonValue> f : v.asDocument().entrySet()) {
                    String path = next.getKey() + "." + f.getKey();
                    if (f.getKey().startsWith("$")) {
                        return Optional.of(what + " is a document with the $-prefixed field '" + f.getKey() + "' (at "
                                + path + "): in a filter it would act as a query operator");
                    }
                    if (f.getKey().indexOf('\0') >= 0) {
                        return Optional.of(what + " has a field name with a NUL character (at " + path.replace("\0", "\\0")
                                + "), which BSON cannot encode");
                    }
                    todo.push(Map.entry(path, f.getValue()));
                }
            } else if (v.isArray()) {
                int i = 0;
                for (BsonValue item : v.asArray()) {
                    todo.push(Map.entry(next.getKey() + "." + i++, item));
                }
            }
        }
        return Optional.empty();
    }
}
