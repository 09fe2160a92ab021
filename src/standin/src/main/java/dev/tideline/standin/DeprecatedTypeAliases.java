package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import de.bwaldvogel.mongo.wire.BsonConstants;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * {@code $type} with the aliases (or numbers) of the types mongo-java-server has no class for: undefined
 * (6), dbPointer (12), javascript (13), symbol (14), javascriptWithScope (15). MongoDB accepts them all
 * (https://www.mongodb.com/docs/manual/reference/operator/query/type/#available-types); mongo-java-server
 * refuses them as unknown, so a resumable copy or a verify range that names every later type bracket
 * failed on it. The stand-in holds values of those types as binary data ({@link LosslessValues}), which
 * its matcher cannot tell apart from binary data. So an alias of a type no document of the collection
 * holds at that field is dropped from the query (on MongoDB it would match nothing either: the answer
 * is the same), and one of a type it does hold there is refused with an error that says so, rather
 * than answered wrongly.
 */
final class DeprecatedTypeAliases {
    private static final Map<String, Byte> ALIASES = Map.of(
            "undefined", BsonConstants.TYPE_UNDEFINED, "dbPointer", BsonConstants.TYPE_DBPOINTER,
            "javascript", BsonConstants.TYPE_JAVASCRIPT_CODE, "symbol", BsonConstants.TYPE_SYMBOL,
            "javascriptWithScope", BsonConstants.TYPE_JAVASCRIPT_CODE_WITH_SCOPE);

    private DeprecatedTypeAliases() {
    }

    /** Whether the collection holds a value of BSON type {@code type} at field path {@code path}. */
    interface Holdings {
        boolean holds(String path, byte type);
    }

    /** {@code query} without the aliases of types the collection holds no value of; the same instance when it names none. */
    static Document dropped(Document query, Holdings holdings) {
        if (query == null || !mentionsType(query)) {
            return query;
        }
        return (Document) rewrite(query, null, holdings);
    }

    private static boolean mentionsType(Object value) {
        if (value instanceof Document d) {
            for (Map.Entry<String, Object> e : d.entrySet()) {
                if (e.getKey().equals("$type") || mentionsType(e.getValue())) {
                    return true;
                }
            }
        } else if (value instanceof Collection<?> items) {
            for (Object item : items) {
                if (mentionsType(item)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code path}: the field the operators of {@code value} apply to (null at the top or under $or/$and). */
    private static Object rewrite(Object value, String path, Holdings holdings) {
        if (value instanceof Document d) {
            Document out = new Document();
            d.forEach((k, v) -> {
                if (k.equals("$type")) {
                    Object kept = types(v, path, holdings);
                    if (kept instanceof Collection<?> none && none.isEmpty()) {
                        out.put("$in", List.of()); // no type left: matches nothing (an empty $type list is refused)
                    } else {
                        out.put(k, kept);
                    }
                } else {
                    out.put(k, rewrite(v, k.startsWith("$") ? (k.equals("$not") || k.equals("$elemMatch") ? path : null) : k, holdings));
                }
            });
            return out;
        }
        if (value instanceof Collection<?> items) {
            List<Object> out = new ArrayList<>();
            items.forEach(i -> out.add(rewrite(i, null, holdings)));
            return out;
        }
        return value;
    }

    private static Object types(Object spec, String path, Holdings holdings) {
        if (spec instanceof Collection<?> items) {
            List<Object> kept = new ArrayList<>();
            for (Object item : items) {
                if (!isDroppedAlias(item, path, holdings)) {
                    kept.add(item);
                }
            }
            return kept;
        }
        return isDroppedAlias(spec, path, holdings) ? List.of() : spec;
    }

    private static boolean isDroppedAlias(Object item, String path, Holdings holdings) {
        Byte type = item instanceof String s ? ALIASES.get(s)
                : item instanceof Number n && ALIASES.containsValue((byte) n.intValue()) && n.doubleValue() == n.intValue()
                ? (byte) n.intValue() : null;
        if (type == null) {
            return false;
        }
        if (path == null || holdings.holds(path, type)) {
            throw new MongoServerError(2, "BadValue", "the stand-in cannot match $type " + item + " while it holds values of "
                    + "that type at " + path + " (it keeps them as binary data): a limit of the test server, not of MongoDB");
        }
        return true;
    }
}
