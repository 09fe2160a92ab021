package dev.tideline.source.config;

import dev.tideline.config.Validators;
import dev.tideline.event.Namespace;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** The date scan: used in scan mode and where auto mode finds no change streams. */
public final class ScanSettings {
    public static final String GROUP = "Date scan";
    public static final String SCAN_KEY = "scan.key";
    public static final String SCAN_KEYS = "scan.keys";
    public static final String SCAN_LOOKBACK_MS = "scan.lookback.ms";
    public static final String SCAN_INTERVAL_MS = "scan.interval.ms";
    public static final String SCAN_CREATE_INDEX = "scan.create.index";
    public static final String DELETE_MARKER_COLLECTION = "scan.delete.collection";

    private final String key;
    private final BsonDocument keys;
    private final long lookbackMs;
    private final long intervalMs;
    private final boolean createIndex;
    private final String deleteMarkerCollection;

    ScanSettings(AbstractConfig c) {
        key = c.getString(SCAN_KEY);
        keys = Validators.parseJsonObject(SCAN_KEYS, c.getString(SCAN_KEYS));
        lookbackMs = c.getLong(SCAN_LOOKBACK_MS);
        intervalMs = c.getLong(SCAN_INTERVAL_MS);
        createIndex = c.getBoolean(SCAN_CREATE_INDEX);
        deleteMarkerCollection = c.getString(DELETE_MARKER_COLLECTION);
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(SCAN_KEY, Type.STRING, "updatedAt", new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Document field the scan orders by and resumes from, with _id as tie-breaker: every write must set it "
                        + "to a growing value (a date or a number). Query: (key > v) or (key = v and _id > id).",
                GROUP, ++order, Width.MEDIUM, "Scan key");
        def.define(SCAN_KEYS, Type.STRING, "", Validators.jsonObject("namespace -> scan key"), Importance.MEDIUM,
                "Per-collection scan keys as a JSON object, e.g. {\"shop.audit\": \"ts\"}; others use scan.key.",
                GROUP, ++order, Width.LONG, "Scan keys per collection");
        def.define(SCAN_LOOKBACK_MS, Type.LONG, 0L, ConfigDef.Range.atLeast(0), Importance.LOW,
                "Each pass re-reads this many milliseconds behind the cursor (date keys only), to catch writes whose key "
                        + "was set a little in the past (clock skew, long transactions). Re-read documents are emitted again; "
                        + "sinks apply them idempotently.",
                GROUP, ++order, Width.SHORT, "Scan lookback (ms)");
        def.define(SCAN_INTERVAL_MS, Type.LONG, 1_000L, ConfigDef.Range.atLeast(10), Importance.MEDIUM,
                "Pause between two scan passes that found nothing new.",
                GROUP, ++order, Width.SHORT, "Scan interval (ms)");
        def.define(SCAN_CREATE_INDEX, Type.BOOLEAN, false, Importance.LOW,
                "Create the {key: 1, _id: 1} index the scan needs on each scanned collection (and on the delete-marker "
                        + "collection). Off by default: index builds are the application owner's decision.",
                GROUP, ++order, Width.SHORT, "Create scan index");
        def.define(DELETE_MARKER_COLLECTION, Type.STRING, "_tideline_deletes", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                "A scan cannot see deletes. The application (or a trigger) records each delete in this collection of the "
                        + "same database: {coll: <collection name>, docId: <the deleted _id>, deletedAt: <date>}. The scan reads "
                        + "it by (deletedAt, _id) and emits delete records on the collection's topic.",
                GROUP, ++order, Width.MEDIUM, "Delete-marker collection");
    }

    public String keyFor(Namespace ns) {
        BsonValue k = keys.get(ns.fullName());
        return k != null && k.isString() ? k.asString().getValue() : key;
    }

    public long lookbackMs() {
        return lookbackMs;
    }

    public long intervalMs() {
        return intervalMs;
    }

    public boolean createIndex() {
        return createIndex;
    }

    public String deleteMarkerCollection() {
        return deleteMarkerCollection;
    }
}
