package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A collection's {@code _id} index kept in order, as MongoDB's B-tree index is: a query on an {@code _id}
 * range sorted by {@code _id} walks the index from the range's start and stops once it has what it was
 * asked for (skip plus limit), examining one key per entry walked, skipped ones included
 * ({@code keysExamined} of explain's executionStats,
 * https://www.mongodb.com/docs/manual/reference/explain-results/#mongodb-data-explain.executionStats.totalKeysExamined).
 * mongo-java-server's own {@code _id} index is a hash map, so every such query read and sorted the whole
 * collection, whatever its range and limit.
 *
 * <p>Range predicates follow MongoDB's type bracketing (https://www.mongodb.com/docs/manual/reference/method/db.collection.find/#type-bracketing):
 * {@code {$gt: 5}} matches numbers only, and in {@code _id} order the values of one type are contiguous, so
 * the walk ends at the first key past the matching run. Not thread-safe: its collection's lock guards it.
 */
final class OrderedIdIndex {
    private static final Set<String> RANGE_OPERATORS = Set.of("$gt", "$gte", "$lt", "$lte");

    /** {@code _id} to the document's position in its collection. */
    private final TreeMap<Object, Integer> positions = new TreeMap<>(IdOrder.INSTANCE);
    private final LongAdder keysExamined;

    /** @param keysExamined where the keys this index walks are counted (the server's total) */
    OrderedIdIndex(LongAdder keysExamined) {
        this.keysExamined = keysExamined;
    }

    void add(Object id, Integer position) {
        if (id != null) {
            positions.put(id, position);
        }
    }

    /** The position of the document with this {@code _id} (in the index's order, equal ids are one key), or null. */
    Integer position(Object id) {
        return id == null ? null : positions.get(id);
    }

    void remove(Object id) {
        if (id != null) {
            positions.remove(id);
        }
    }

    /**
     * The documents of an {@code _id} range query sorted by {@code _id}, walked from the index lazily (the
     * caller's skip and limit end the walk), or null when the query is not one this index serves: a filter
     * on anything but {@code _id} ranges, or another sort.
     *
     * @param document the document at a position
     * @param matches  whether a document matches {@code query} (the collection's own matcher)
     */
    Stream<Document> walk(Document query, Document orderBy, Function<Integer, Document> document, Predicate<Document> matches) {
        Integer direction = direction(orderBy);
        Document range = range(query);
        if (direction == null || range == null) {
            return null;
        }
        NavigableMap<Object, Integer> keys = keys(range);
        NavigableMap<Object, Integer> ordered = direction > 0 ? keys : keys.descendingMap();
        return ordered.values().stream()
                .peek(p -> keysExamined.increment())
                .map(document::apply)
                .dropWhile(matches.negate()) // another type before the bracketed run
                .takeWhile(matches); // the run ends where another type begins
    }

    /** The keys between the range's tightest lower and upper bounds. */
    private NavigableMap<Object, Integer> keys(Document range) {
        IdOrder order = IdOrder.INSTANCE;
        Object low = null;
        boolean lowInclusive = false;
        Object high = null;
        boolean highInclusive = false;
        for (String op : range.keySet()) {
            Object bound = range.get(op);
            boolean inclusive = op.endsWith("e");
            if (op.startsWith("$g")) {
                int c = low == null ? 1 : order.compare(bound, low);
                if (c > 0 || (c == 0 && !inclusive)) {
                    low = bound;
                    lowInclusive = inclusive;
                }
            } else {
                int c = high == null ? -1 : order.compare(bound, high);
                if (c < 0 || (c == 0 && !inclusive)) {
                    high = bound;
                    highInclusive = inclusive;
                }
            }
        }
        if (low != null && high != null) {
            int c = order.compare(low, high);
            if (c > 0 || (c == 0 && !(lowInclusive && highInclusive))) {
                return new TreeMap<>(order);
            }
            return positions.subMap(low, lowInclusive, high, highInclusive);
        }
        if (low != null) {
            return positions.tailMap(low, lowInclusive);
        }
        return high != null ? positions.headMap(high, highInclusive) : positions;
    }

    /** 1 or -1 for a sort on {@code _id} alone, else null. */
    private static Integer direction(Document orderBy) {
        if (orderBy == null || orderBy.size() != 1 || !(orderBy.get("_id") instanceof Number n)) {
            return null;
        }
        return n.intValue() >= 0 ? 1 : -1;
    }

    /** The range operators on {@code _id} ({} for no filter), or null when the query is anything else. */
    private static Document range(Document query) {
        if (query == null || query.isEmpty()) {
            return new Document();
        }
        if (query.size() != 1 || !(query.get("_id") instanceof Document condition) || condition.isEmpty()
                || !RANGE_OPERATORS.containsAll(condition.keySet())) {
            return null;
        }
        return condition;
    }
}
