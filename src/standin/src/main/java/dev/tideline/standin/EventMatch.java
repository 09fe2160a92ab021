package dev.tideline.standin;

import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A change stream's leading {@code $match} compiled once, so that each event costs what MongoDB's compiled match
 * costs (https://www.mongodb.com/docs/manual/reference/operator/query/: equality, {@code $in}, {@code $ne},
 * {@code $eq}, {@code $gt}, {@code $gte}, {@code $lt}, {@code $lte} with comparison inside one type bracket, under
 * {@code $and} and {@code $or}). mongo-java-server's generic matcher splits every dotted path with a regular
 * expression for every event: most of a stand-in's CPU per event for a stream filtered by namespace and cluster time.
 *
 * <p>Only that grammar compiles (anything else, {@link #compile} answers null and the generic matcher keeps the whole
 * stage), and an event whose path crosses an array or whose value is not a plain scalar is answered
 * {@link Verdict#UNKNOWN}: the generic matcher decides it. {@code EventMatchTest} compares the two on random events
 * and filters.
 */
final class EventMatch {
    private static final Set<String> OPERATORS = Set.of("$eq", "$ne", "$in", "$gt", "$gte", "$lt", "$lte");
    private static final ValueComparator VALUES = ValueComparator.asc();

    enum Verdict { MATCH, NO_MATCH, UNKNOWN }

    private interface Node {
        Verdict test(Document event);
    }

    private final Node root;

    private EventMatch(Node root) {
        this.root = root;
    }

    /** The compiled filter of a {@code $match} stage, or null when it uses anything outside the grammar. */
    static EventMatch compile(Document filter) {
        Node n = filter(filter);
        return n == null ? null : new EventMatch(n);
    }

    Verdict test(Document event) {
        return root.test(event);
    }

    private static Node filter(Document filter) {
        List<Node> all = new ArrayList<>();
        for (Map.Entry<String, Object> e : filter.entrySet()) {
            String key = e.getKey();
            Node n;
            if (key.equals("$or") || key.equals("$and")) {
                n = logical(key.equals("$or"), e.getValue());
            } else if (key.startsWith("$") || key.isEmpty() || key.startsWith(".") || key.endsWith(".") || key.contains("..")) {
                return null;
            } else {
                n = field(key.split("\\."), e.getValue());
            }
            if (n == null) {
                return null;
            }
            all.add(n);
        }
        return and(all);
    }

    private static Node logical(boolean or, Object value) {
        if (!(value instanceof List<?> list) || list.isEmpty()) {
            return null;
        }
        List<Node> children = new ArrayList<>();
        for (Object item : list) {
            if (!(item instanceof Document d)) {
                return null;
            }
            Node n = filter(d);
            if (n == null) {
                return null;
            }
            children.add(n);
        }
        return or ? or(children) : and(children);
    }

    private static Node and(List<Node> children) {
        return decidedByAny(children, Verdict.NO_MATCH, Verdict.MATCH);
    }

    private static Node or(List<Node> children) {
        return decidedByAny(children, Verdict.MATCH, Verdict.NO_MATCH);
    }

    /** {@code decisive} as soon as one child answers it; else UNKNOWN when a child could not decide, else {@code otherwise}. */
    private static Node decidedByAny(List<Node> children, Verdict decisive, Verdict otherwise) {
        Node[] c = children.toArray(new Node[0]);
        return event -> {
            boolean unknown = false;
            for (Node n : c) {
                Verdict v = n.test(event);
                if (v == decisive) {
                    return decisive;
                }
                unknown |= v == Verdict.UNKNOWN;
            }
            return unknown ? Verdict.UNKNOWN : otherwise;
        };
    }

    /** One field's condition: a scalar (equality) or a document of the grammar's operators. */
    private static Node field(String[] path, Object condition) {
        if (bracket(condition) != null) {
            return compare(path, "$eq", condition);
        }
        if (!(condition instanceof Document ops) || ops.isEmpty()) {
            return null;
        }
        List<Node> all = new ArrayList<>();
        for (Map.Entry<String, Object> op : ops.entrySet()) {
            if (!OPERATORS.contains(op.getKey())) {
                return null;
            }
            Node n;
            if (op.getKey().equals("$in")) {
                if (!(op.getValue() instanceof List<?> values) || values.stream().anyMatch(v -> bracket(v) == null)) {
                    return null;
                }
                List<Node> any = new ArrayList<>();
                values.forEach(v -> any.add(compare(path, "$eq", v)));
                n = any.isEmpty() ? event -> value(event, path) == UNREADABLE ? Verdict.UNKNOWN : Verdict.NO_MATCH : or(any);
            } else {
                if (bracket(op.getValue()) == null) {
                    return null;
                }
                n = compare(path, op.getKey(), op.getValue());
            }
            all.add(n);
        }
        return and(all);
    }

    private static Node compare(String[] path, String op, Object operand) {
        String operandBracket = bracket(operand);
        return event -> {
            Object v = value(event, path);
            if (v == UNREADABLE) {
                return Verdict.UNKNOWN;
            }
            if (v == MISSING) {
                return op.equals("$ne") ? Verdict.MATCH : Verdict.NO_MATCH;
            }
            String b = bracket(v);
            if (b == null) {
                return Verdict.UNKNOWN; // null, a document, an array, another type: the generic matcher's rules
            }
            if (!b.equals(operandBracket)) {
                return op.equals("$ne") ? Verdict.MATCH : Verdict.NO_MATCH; // no comparison across type brackets
            }
            int c = VALUES.compare(v, operand);
            boolean match = switch (op) {
                case "$eq" -> c == 0;
                case "$ne" -> c != 0;
                case "$gt" -> c > 0;
                case "$gte" -> c >= 0;
                case "$lt" -> c < 0;
                default -> c <= 0; // $lte
            };
            return match ? Verdict.MATCH : Verdict.NO_MATCH;
        };
    }

    private static final Object MISSING = new Object();
    private static final Object UNREADABLE = new Object();

    /** The value at {@code path}; MISSING when a step is absent, UNREADABLE when a step is not a plain document. */
    private static Object value(Document event, String[] path) {
        Object v = event;
        for (String step : path) {
            if (!(v instanceof Document d)) {
                return UNREADABLE; // through null, a scalar or an array: the generic matcher's rules
            }
            v = d.containsKey(step) ? d.get(step) : MISSING;
            if (v == MISSING) {
                return MISSING;
            }
        }
        return v;
    }

    /** The type bracket of a scalar the grammar compares, or null for anything else. */
    private static String bracket(Object v) {
        if (v instanceof Integer || v instanceof Long || (v instanceof Double d && !d.isNaN() && d != 0.0)) {
            return "number"; // NaN and zeros (-0.0 equals 0) left to the generic matcher
        }
        if (v instanceof String) {
            return "string";
        }
        if (v instanceof Boolean) {
            return "bool";
        }
        if (v instanceof BsonTimestamp) {
            return "timestamp";
        }
        return null;
    }
}
