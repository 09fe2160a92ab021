package dev.tideline.standin;

import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.bson.Document;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;

/**
 * The order of {@link OrderedIdIndex}'s keys: exactly mongo-java-server's {@link ValueComparator#asc()}, which orders
 * values as MongoDB does (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/), at a cost close
 * to MongoDB's for embedded-document keys. MongoDB keeps an index key as one byte string whose byte order is that
 * order (KeyString), so a compound {@code _id} such as {@code {ns: "c", id: 7}} costs about as much to index as a
 * scalar one. {@code ValueComparator} copies both documents' field names into lists and looks each field up by name
 * at every comparison: an insert into a collection keyed by small documents cost this stand-in about as much as the
 * upsert of a 1 KB document keyed by an integer.
 *
 * <p>The shortcut: two documents with the same field names in the same order compare field by field, as
 * {@code ValueComparator} does (for equal names, its type-then-value comparison of each pair is what it returns for
 * the pair of values); strings and integers of one type directly, every other value through {@code ValueComparator}.
 * Anything else (other names, another count, nulls, missing values, arrays, MinKey) goes to {@code ValueComparator}
 * whole. Two scalar keys of one of those types compare directly too: {@code ValueComparator} looked up both types'
 * order on each comparison, a sixth of the stand-in's CPU in a sink benchmark's upserts. IdOrderTest checks the two agree.
 */
final class IdOrder implements Comparator<Object> {
    static final IdOrder INSTANCE = new IdOrder();
    private static final ValueComparator VALUES = ValueComparator.asc();

    private IdOrder() {
    }

    @Override
    public int compare(Object a, Object b) {
        // Scalar keys of one type (a copy's or a sink's integer or string ids): what ValueComparator returns for
        // the pair once it has found both types equal, without its type lookups on each of a tree walk's comparisons.
        if (a instanceof Integer na && b instanceof Integer nb) {
            return Integer.compare(na, nb);
        }
        if (a instanceof String sa && b instanceof String sb) {
            return sa.compareTo(sb);
        }
        if (a instanceof Long na && b instanceof Long nb) {
            return Long.compare(na, nb);
        }
        if (a instanceof Document da && b instanceof Document db && da.size() == db.size()) {
            Integer c = compareAligned(da, db);
            if (c != null) {
                return c;
            }
        }
        return VALUES.compare(a, b);
    }

    /** The order of two documents whose fields line up by name, or null when they do not (or hold values left to {@link #VALUES}). */
    private Integer compareAligned(Document a, Document b) {
        Iterator<Map.Entry<String, Object>> ia = a.entrySet().iterator();
        Iterator<Map.Entry<String, Object>> ib = b.entrySet().iterator();
        while (ia.hasNext() && ib.hasNext()) {
            Map.Entry<String, Object> ea = ia.next();
            Map.Entry<String, Object> eb = ib.next();
            if (!ea.getKey().equals(eb.getKey())) {
                return null;
            }
            Object va = ea.getValue();
            Object vb = eb.getValue();
            int c;
            if (va instanceof String sa && vb instanceof String sb) {
                c = sa.compareTo(sb);
            } else if (va instanceof Integer na && vb instanceof Integer nb) {
                c = Integer.compare(na, nb);
            } else if (va instanceof Long na && vb instanceof Long nb) {
                c = Long.compare(na, nb);
            } else if (va instanceof Document && vb instanceof Document) {
                c = compare(va, vb);
            } else if (simple(va) && simple(vb)) {
                c = VALUES.compare(va, vb);
            } else {
                return null;
            }
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** A value {@code ValueComparator} compares by type, then value (not null, missing, an array or MinKey, which it special-cases first). */
    private static boolean simple(Object v) {
        return v != null && !(v instanceof java.util.Collection) && !(v instanceof de.bwaldvogel.mongo.bson.MinKey)
                && !de.bwaldvogel.mongo.backend.Missing.isNullOrMissing(v);
    }
}
