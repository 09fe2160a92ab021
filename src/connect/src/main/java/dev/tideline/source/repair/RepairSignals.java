package dev.tideline.source.repair;

import dev.tideline.log.LogText;
import dev.tideline.mongo.BsonOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Reads repair signals: documents an operator (or {@code tideline-verify --repair}) inserts into
 * {@code <db>._tideline_signals}, one per repair. Pure.
 *
 * <pre>
 * {collection: "orders"}                              the whole collection
 * {collection: "orders", from: 1000, to: 2000}        _ids in [1000, 2000), either bound may be left out
 * {collection: "orders", ids: [17, 42, "a"]}          these _ids (found: copied; not found: deleted)
 * </pre>
 * An optional {@code type} must be {@code "repair"} (room for other signals later). The same collection
 * also holds the source's watermarks ({@code _id: {tidelineWindow: ...}}), which are not signals.
 */
public final class RepairSignals {
    /** The collection, in each captured database, that holds the signals (never captured: every _tideline* is excluded). */
    public static final String COLLECTION = "_tideline_signals";
    /** The key of a watermark document's {@code _id}. */
    public static final String WINDOW_KEY = "tidelineWindow";
    /** MongoDB's limit for a document is 16 MB; a list this long is an operator mistake, not a repair. */
    static final int MAX_IDS = 1_000_000;
    /**
     * The largest signal {@code _id}, in BSON bytes: it names the running repair in every record's source
     * offset of its collection, which must stay small (and under the offsets topic's record limit).
     */
    public static final int MAX_SIGNAL_ID_BYTES = 256;
    /**
     * The largest listed {@code _id} or bound, in BSON bytes (MongoDB's index key limit before 4.2): the last
     * one handed over is kept in the offset as the repair's position.
     */
    public static final int MAX_ID_BYTES = 1024;

    /** A signal read: the request, or why it is refused (for the log and the control topic). */
    public record Parsed(RepairRequest request, String problem) {
        public boolean ok() {
            return request != null;
        }
    }

    private RepairSignals() {
    }

    /** Whether a document {@code _id} of the signal collection is one of the source's watermarks. */
    public static boolean isWatermark(BsonValue id) {
        return id != null && id.isDocument() && id.asDocument().containsKey(WINDOW_KEY);
    }

    public static Parsed parse(BsonDocument signal) {
        BsonValue id = signal.get("_id");
        if (id == null) {
            return refused("it has no _id");
        }
        int idBytes = bsonBytes(id);
        if (idBytes > MAX_SIGNAL_ID_BYTES) {
            return refused("its _id takes " + idBytes + " bytes; at most " + MAX_SIGNAL_ID_BYTES
                    + " (an ObjectId, a number or a short string): insert the signal again with a small _id");
        }
        BsonValue type = signal.get("type");
        if (type != null && !(type.isString() && type.asString().getValue().equals("repair"))) {
            return refused("type must be \"repair\" (or left out), got " + LogText.escape(type));
        }
        BsonValue coll = signal.get("collection");
        if (coll == null || !coll.isString() || coll.asString().getValue().isEmpty()) {
            return refused("it needs \"collection\": the name of the collection to repair, in the signal's database");
        }
        BsonValue ids = signal.get("ids");
        BsonValue from = signal.get("from");
        BsonValue to = signal.get("to");
        RepairRequest.Scope scope;
        if (ids != null) {
            if (from != null || to != null) {
                return refused("give either \"ids\" or \"from\"/\"to\", not both");
            }
            if (!ids.isArray() || ids.asArray().isEmpty()) {
                return refused("\"ids\" must be a non-empty array of _id values");
            }
            if (ids.asArray().size() > MAX_IDS) {
                return refused("\"ids\" lists " + ids.asArray().size() + " values; at most " + MAX_IDS
                        + " per signal: repair a range (\"from\"/\"to\") or the whole collection instead");
            }
            TreeSet<BsonValue> sorted = new TreeSet<>(BsonOrder.COMPARATOR);
            for (BsonValue v : ids.asArray()) {
                String bad = notAnId(v);
                if (bad != null) {
                    return refused("\"ids\" holds " + LogText.escape(v) + ", which " + bad);
                }
                sorted.add(v);
            }
            scope = new RepairRequest.Ids(new ArrayList<>(sorted));
        } else if (from != null || to != null) {
            for (BsonValue bound : new BsonValue[] {from, to}) {
                String bad = bound == null ? null : notAnId(bound);
                if (bad != null) {
                    return refused("a bound " + LogText.escape(bound) + " " + bad);
                }
            }
            if (from != null && to != null && BsonOrder.compare(from, to) >= 0) {
                return refused("\"from\" (" + LogText.escape(from) + ") must come before \"to\" (" + LogText.escape(to) + ") in MongoDB's order");
            }
            scope = new RepairRequest.Range(from, to);
        } else {
            scope = new RepairRequest.Whole();
        }
        return new Parsed(new RepairRequest(id, coll.asString().getValue(), scope), null);
    }

    /** Why a value cannot be a document's _id (https://www.mongodb.com/docs/manual/core/document/#the-_id-field), or null. */
    private static String notAnId(BsonValue v) {
        int bytes = bsonBytes(v);
        if (bytes > MAX_ID_BYTES) {
            return "takes " + bytes + " bytes; a repair takes _ids of at most " + MAX_ID_BYTES + " (repair a range or the whole "
                    + "collection instead)";
        }
        BsonType t = v.getBsonType();
        if (t == BsonType.ARRAY || t == BsonType.REGULAR_EXPRESSION || t == BsonType.UNDEFINED) {
            return "cannot be an _id (MongoDB allows no array, regular expression or undefined there)";
        }
        if (t == BsonType.DOCUMENT && v.asDocument().keySet().stream().anyMatch(k -> k.startsWith("$"))) {
            return "is a document with a $ key: an operator, not an _id";
        }
        return null;
    }

    /** The BSON size of {@code {_id: value}}: what the value adds to a document that holds it. */
    private static int bsonBytes(BsonValue value) {
        return new RawBsonDocument(new BsonDocument("_id", value), new BsonDocumentCodec()).getByteBuffer().remaining();
    }

    private static Parsed refused(String why) {
        return new Parsed(null, why);
    }

    /** The ids after {@code last} (all when null), at most {@code n}. */
    public static List<BsonValue> idsAfter(List<BsonValue> sorted, BsonValue last, int n) {
        int from = 0;
        if (last != null) {
            int lo = 0;
            int hi = sorted.size();
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (BsonOrder.compare(sorted.get(mid), last) <= 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            from = lo;
        }
        return sorted.subList(from, Math.min(sorted.size(), from + n));
    }
}
