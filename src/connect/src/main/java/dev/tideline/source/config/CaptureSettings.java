package dev.tideline.source.config;

import dev.tideline.config.ConfigChoices;
import dev.tideline.config.Validators;
import dev.tideline.config.Validators.EnumValidator;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** How changes are detected, where capture starts, and what the records look like. */
public final class CaptureSettings {
    public static final String GROUP = "Capture";
    public static final String MODE = "mode";
    public static final String INITIAL_SYNC = "initial.sync";
    public static final String LOST_HISTORY_POLICY = "lost.history.policy";
    public static final String RESNAPSHOT_MARKER_PARTITIONS = "resnapshot.marker.partitions";
    public static final String FILTERS = "filters";
    public static final String OUTPUT_FORMAT = "output.format";
    public static final String TENANT_FIELD = "tenant.field";
    public static final String DELETE_TOMBSTONE = "delete.tombstone";
    public static final String HEARTBEAT_INTERVAL_MS = "heartbeat.interval.ms";
    public static final String BATCH_SIZE = "batch.size";
    public static final String RECORDS_IN_FLIGHT_MAX = "records.in.flight.max";
    public static final String MAX_AWAIT_MS = "change.stream.max.await.ms";
    public static final String STREAM_SCOPE = "change.stream.scope";
    public static final String LARGE_EVENT_POLICY = "large.event.policy";
    public static final String DROP_POLICY = "drop.policy";
    public static final String BACKFILL_MAX_CONCURRENT = "backfill.max.concurrent";
    public static final String BACKFILL_SPLIT_MIN_DOCUMENTS = "backfill.split.min.documents";

    public enum Mode { AUTO, CHANGE_STREAM, SCAN }

    public enum LostHistoryPolicy { RESNAPSHOT, LATEST, FAIL }

    /** What happens to an event over 16 MB on a server that cannot split it. */
    public enum LargeEventPolicy { PARK, SKIP }

    private static final EnumValidator MODES = ConfigChoices.validator(Mode.class);
    private static final EnumValidator POLICIES = ConfigChoices.validator(LostHistoryPolicy.class);
    private static final EnumValidator FORMATS = ConfigChoices.validator(ValueFormat.class);
    private static final EnumValidator LARGE_EVENTS = ConfigChoices.validator(LargeEventPolicy.class);

    /** What a collection's drop (or its rename away, or its database's drop) does at the destination. */
    public enum DropPolicy { APPLY, REPORT }

    private static final EnumValidator DROPS = ConfigChoices.validator(DropPolicy.class);

    /** What one change stream of a task watches: one database, or every database the task reads. */
    public enum StreamScope { DATABASE, DEPLOYMENT }

    private static final EnumValidator SCOPES = ConfigChoices.validator(StreamScope.class);

    private final Mode mode;
    private final InitialSync initialSync;
    private final LostHistoryPolicy lostHistoryPolicy;
    private final Integer resnapshotMarkerPartitions;
    private final BsonDocument filters;
    private final ValueFormat outputFormat;
    private final String tenantField;
    private final boolean deleteTombstone;
    private final long heartbeatIntervalMs;
    private final int batchSize;
    private final int recordsInFlightMax;
    private final int maxAwaitMs;
    private final StreamScope streamScope;
    private final LargeEventPolicy largeEventPolicy;
    private final DropPolicy dropPolicy;
    private final int backfillMaxConcurrent;
    private final long backfillSplitMinDocuments;

    CaptureSettings(AbstractConfig c) {
        mode = ConfigChoices.parse(Mode.class, MODE, c.getString(MODE));
        initialSync = InitialSync.parse(c.getString(INITIAL_SYNC));
        lostHistoryPolicy = ConfigChoices.parse(LostHistoryPolicy.class, LOST_HISTORY_POLICY, c.getString(LOST_HISTORY_POLICY));
        resnapshotMarkerPartitions = c.getInt(RESNAPSHOT_MARKER_PARTITIONS);
        filters = Validators.parseJsonObject(FILTERS, c.getString(FILTERS));
        outputFormat = ConfigChoices.parse(ValueFormat.class, OUTPUT_FORMAT, c.getString(OUTPUT_FORMAT));
        String tenant = c.getString(TENANT_FIELD);
        tenantField = tenant == null || tenant.isBlank() ? null : tenant.trim();
        deleteTombstone = c.getBoolean(DELETE_TOMBSTONE);
        heartbeatIntervalMs = c.getLong(HEARTBEAT_INTERVAL_MS);
        batchSize = c.getInt(BATCH_SIZE);
        recordsInFlightMax = c.getInt(RECORDS_IN_FLIGHT_MAX);
        maxAwaitMs = c.getInt(MAX_AWAIT_MS);
        streamScope = ConfigChoices.parse(StreamScope.class, STREAM_SCOPE, c.getString(STREAM_SCOPE));
        largeEventPolicy = ConfigChoices.parse(LargeEventPolicy.class, LARGE_EVENT_POLICY, c.getString(LARGE_EVENT_POLICY));
        dropPolicy = ConfigChoices.parse(DropPolicy.class, DROP_POLICY, c.getString(DROP_POLICY));
        backfillMaxConcurrent = c.getInt(BACKFILL_MAX_CONCURRENT);
        backfillSplitMinDocuments = c.getLong(BACKFILL_SPLIT_MIN_DOCUMENTS);
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(MODE, Type.STRING, "auto", MODES, Importance.HIGH,
                "How changes are detected. auto: a change stream where the server serves one (replica set or sharded "
                        + "cluster), otherwise the date scan, with one loud warning; decided by opening a stream. "
                        + "changeStream: streams only (fails where the server cannot serve one). scan: the date scan "
                        + "(see the scan.* settings; deletes come from the delete-marker collection).",
                GROUP, ++order, Width.SHORT, "Change detection mode", MODES);
        def.define(INITIAL_SYNC, Type.STRING, "full", new InitialSyncValidator(), Importance.HIGH,
                "Where a collection without a stored offset starts. full: copy the existing documents (a resumable "
                        + "backfill), then stream from a position taken before the copy, so nothing written during it is "
                        + "lost. skip: stream from the instant the connector first captured the collection's database, kept in "
                        + "<db>._tideline_starts (needs find, insert and update there) so that a restart before the first "
                        + "offset commit starts from that same instant; a collection created after it is copied (all of it is "
                        + "new). latest: with change streams as skip; in scan mode from the current maximum scan key. An ISO-8601 "
                        + "date-time (2024-05-01T00:00:00Z): stream from that operation time, or scan from that key value.",
                GROUP, ++order, Width.MEDIUM, "Initial sync");
        def.define(LOST_HISTORY_POLICY, Type.STRING, "resnapshot", POLICIES, Importance.MEDIUM,
                "What to do when a collection's stream position is no longer in the oplog (errors 286, 280, 260, 136), "
                        + "decided per collection: the task's other collections go on. resnapshot: copy the collection again, "
                        + "then stream (nothing lost, replays are idempotent; the copy's markers let the Tideline sink remove "
                        + "what was deleted meanwhile). latest: log a warning and a control record, then stream from now "
                        + "(changes in the gap are lost). fail: stop the task with a message. A copy that took longer than "
                        + "the oplog window is not copied again (it would outlive it again): the collection is parked with "
                        + "what to do.",
                GROUP, ++order, Width.SHORT, "Lost history policy", POLICIES);
        def.define(RESNAPSHOT_MARKER_PARTITIONS, Type.INT, null, new OptionalCount(), Importance.MEDIUM,
                "The partition count of the change topics, where Connect does not create them. Every copy (the first one, "
                        + "one after a restart without a committed offset, one after a lost history) writes a resnapshot.begin "
                        + "and a resnapshot.complete marker to partitions 0..n-1 of the collection's change topic; on 'complete' "
                        + "the Tideline sink removes the documents of that partition the copy did not find. Where Connect creates "
                        + "the topics (topic.creation.default.partitions), each topic's count is taken from topic.creation.* "
                        + "and this setting must be left out (or equal it); otherwise set it to the topics' partition count "
                        + "(default 1): a smaller value leaves the other partitions unswept, a larger one makes the producer "
                        + "wait for partitions that do not exist.",
                GROUP, ++order, Width.SHORT, "Resnapshot marker partitions");
        def.define(FILTERS, Type.STRING, "", Validators.jsonObject("namespace -> MongoDB query on the document"), Importance.MEDIUM,
                "Per-collection filters as a JSON object: namespace -> query on the document, e.g. "
                        + "{\"shop.orders\": {\"status\": {\"$ne\": \"draft\"}}}. Applied by the server: rewritten onto "
                        + "fullDocument.* for change streams, used as is by backfills and scans. Deletes always pass "
                        + "(a delete has no document to test). A document updated out of a filter of comparison operators "
                        + "only ($eq $ne $gt $gte $lt $lte $in $nin $exists $not, $and $or $nor) is sent as a delete; with "
                        + "other operators it stays at the destination until the next copy (docs/operations.md). $where, "
                        + "$text and $expr are not supported.",
                GROUP, ++order, Width.LONG, "Filters");
        def.define(OUTPUT_FORMAT, Type.STRING, "json", FORMATS, Importance.HIGH,
                "Record value and key form. json: a schemaless map in relaxed Extended JSON (int64 kept as "
                        + "$numberLong), for JsonConverter with schemas.enable=false and SMTs. bson: the envelope's BSON "
                        + "bytes, lossless to the byte, for ByteArrayConverter (use it for replication). text: the envelope "
                        + "as canonical Extended JSON text, for StringConverter. struct: a Struct with one fixed schema "
                        + "(dev.tideline.ChangeEnvelope; id and document as canonical Extended JSON text), for JsonConverter "
                        + "with schemas.enable=true or a schema-registry converter. The sink reads all four.",
                GROUP, ++order, Width.SHORT, "Output format", FORMATS);
        def.define(TENANT_FIELD, Type.STRING, "", Importance.LOW,
                "Document field (dotted path allowed) whose value is copied into the tl.tenant header, for routing "
                        + "and the fanout gateway. Empty: no tenant header.",
                GROUP, ++order, Width.MEDIUM, "Tenant field");
        def.define(DELETE_TOMBSTONE, Type.BOOLEAN, false, Importance.LOW,
                "Also emit a Kafka tombstone (null value) after each delete, so compacted topics forget deleted documents.",
                GROUP, ++order, Width.SHORT, "Tombstone after delete");
        def.define(HEARTBEAT_INTERVAL_MS, Type.LONG, 10_000L, ConfigDef.Range.atLeast(0), Importance.LOW,
                "How often a quiet collection emits a heartbeat record carrying its latest stream position (the post-batch "
                        + "resume token), so its resume token never ages out of the oplog only because nothing happened, and a "
                        + "restart re-reads little. A task sends at most 20 heartbeats a second, most overdue first: with more "
                        + "than 20 x interval/1 s quiet collections each one's interval stretches (2,000 collections at the "
                        + "default: one heartbeat each every 100 s). 0 disables heartbeats.",
                GROUP, ++order, Width.SHORT, "Heartbeat interval (ms)");
        def.define(BATCH_SIZE, Type.INT, 1000, ConfigDef.Range.between(1, 100_000), Importance.LOW,
                "Documents read per round trip by backfills, scans and change streams.",
                GROUP, ++order, Width.SHORT, "Batch size");
        def.define(RECORDS_IN_FLIGHT_MAX, Type.INT, 5_000, ConfigDef.Range.between(1, 10_000_000), Importance.LOW,
                "How many records the task hands to Connect before Kafka has acknowledged them: at this many, the task "
                        + "waits for acknowledgements before it hands over more (one poll may still take up to 2 x batch.size). "
                        + "Until acknowledged, a record is held in the worker's heap twice (Connect's record and the producer's "
                        + "bytes); unbounded, a drain faster than the broker's acknowledgements fills the producer's "
                        + "buffer.memory (32 MB by default) and the worker's heap with tens of thousands of records "
                        + "(docs/performance.md). Higher only helps when acknowledgements are slow (a distant broker).",
                GROUP, ++order, Width.SHORT, "Records in flight (max)");
        def.define(MAX_AWAIT_MS, Type.INT, 1000, ConfigDef.Range.between(10, 60_000), Importance.LOW,
                "How long the server may hold an empty change-stream getMore (and, against a server that answers at once, "
                        + "the longest back-off between empty polls).",
                GROUP, ++order, Width.SHORT, "Change stream max await (ms)");
        def.define(STREAM_SCOPE, Type.STRING, "database", SCOPES, Importance.MEDIUM,
                "What one change stream of a task watches. database: one stream per database the task reads (one thread and "
                        + "one connection each; each reads the oplog on its own). deployment: one stream for all of them "
                        + "(client.watch(), matching the task's collections by namespace): threads, connections and oplog reads "
                        + "stay flat in the number of databases; the user needs changeStream and find on every database "
                        + "({db: \"\", collection: \"\"}, e.g. readAnyDatabase). With deployment, a lost history, a refused "
                        + "privilege or a busy database concerns the one stream of all the task's databases "
                        + "(docs/operations.md says when database is the better choice).",
                GROUP, ++order, Width.SHORT, "Change stream scope", SCOPES);
        def.define(LARGE_EVENT_POLICY, Type.STRING, "park", LARGE_EVENTS, Importance.MEDIUM,
                "An event over 16 MB (e.g. an update whose looked-up document and pre-image together exceed it) on a server "
                        + "without $changeStreamSplitLargeEvent (before MongoDB 7.0 and 6.0.9; where the server has it, such "
                        + "events arrive split and are put back together). park: that collection stops at the event (control "
                        + "record, health degraded naming it) while the others go on. skip: a control record names the "
                        + "event's _id and the collection reads on after it; the destination keeps the document's previous "
                        + "version until its next change. Either way a restart meets the event again and decides the same.",
                GROUP, ++order, Width.SHORT, "Large event policy", LARGE_EVENTS);
        def.define(DROP_POLICY, Type.STRING, "apply", DROPS, Importance.MEDIUM,
                "What a captured collection's drop does downstream (also its rename to another name, and the drop of "
                        + "its database, which MongoDB reports as a drop of each collection). Always a control record. apply: "
                        + "the drop also goes to the collection's change topic as a resnapshot.begin and a resnapshot.complete "
                        + "marker at the drop's cluster time, in order with its changes: the Tideline sink (stale.guard on) "
                        + "removes every document written before the drop and keeps those written after a re-create. report: "
                        + "the destination keeps the documents; if the collection is created again, the old documents stay "
                        + "among the new ones until removed by hand or by a repair (docs/repair.md).",
                GROUP, ++order, Width.SHORT, "Drop policy", DROPS);
        def.define(BACKFILL_MAX_CONCURRENT, Type.INT, 4, ConfigDef.Range.between(1, 64), Importance.LOW,
                "How many collections a task copies at once (backfills, re-copies); the others wait their turn. Each copy "
                        + "holds one MongoDB connection and two threads while it runs. Date scans (mode=scan) run on as many "
                        + "threads. The change streams take one connection and one thread per database, whatever the number "
                        + "of collections (one in all with change.stream.scope=deployment).",
                GROUP, ++order, Width.SHORT, "Concurrent backfills");
        def.define(BACKFILL_SPLIT_MIN_DOCUMENTS, Type.LONG, 5_000_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "A collection of at least this many documents (estimated) is copied by all the connector's tasks at once "
                        + "(with tasks.max > 1): its owner cuts it into one _id range per task and each task copies one, "
                        + "resumably. The tasks coordinate through the connector's committed offsets, so such a copy starts "
                        + "on the other tasks and ends up to offset.flush.interval.ms (a worker setting; 60 s by default) after "
                        + "its chunks, which the default size outweighs; with that interval short (seconds), splitting pays "
                        + "from a few hundred thousand documents. 0: every collection is copied by "
                        + "its own task alone. Not in peer mode (peer.cluster.id), whose copies stay with their task.",
                GROUP, ++order, Width.SHORT, "Split copies from (documents)");
    }

    /** The estimated size from which a copy is split across the tasks; 0: never. */
    public long backfillSplitMinDocuments() {
        return backfillSplitMinDocuments;
    }

    public Mode mode() {
        return mode;
    }

    public InitialSync initialSync() {
        return initialSync;
    }

    public LostHistoryPolicy lostHistoryPolicy() {
        return lostHistoryPolicy;
    }

    /** The partitions (0..n-1) of a change topic that copy markers go to, where topic.creation does not say: null when not set. */
    public Integer resnapshotMarkerPartitions() {
        return resnapshotMarkerPartitions;
    }

    public LargeEventPolicy largeEventPolicy() {
        return largeEventPolicy;
    }

    public DropPolicy dropPolicy() {
        return dropPolicy;
    }

    /** How many copies (and scans) a task runs at once. */
    public int backfillMaxConcurrent() {
        return backfillMaxConcurrent;
    }

    /** The filter of a collection (an empty document when none). */
    public BsonDocument filterFor(Namespace ns) {
        BsonValue f = filters.get(ns.fullName());
        return f != null && f.isDocument() ? f.asDocument() : new BsonDocument();
    }

    public Map<String, BsonValue> filters() {
        return filters;
    }

    public ValueFormat outputFormat() {
        return outputFormat;
    }

    /** The tenant field, or null. */
    public String tenantField() {
        return tenantField;
    }

    public boolean deleteTombstone() {
        return deleteTombstone;
    }

    public long heartbeatIntervalMs() {
        return heartbeatIntervalMs;
    }

    public int batchSize() {
        return batchSize;
    }

    /** Records handed to Connect and not yet acknowledged by Kafka, at most (about: a poll may take 2 batches). */
    public int recordsInFlightMax() {
        return recordsInFlightMax;
    }

    public int maxAwaitMs() {
        return maxAwaitMs;
    }

    /** One stream per database, or one per task for every database. */
    public StreamScope streamScope() {
        return streamScope;
    }

    /** full | skip | latest | a date. */
    public record InitialSync(Kind kind, Instant at) {
        public enum Kind { FULL, SKIP, LATEST, DATE }

        /** skip, or latest where the server streams: no copy of what is there when the connector starts. */
        public boolean startsWithoutCopy() {
            return kind == Kind.SKIP || kind == Kind.LATEST;
        }

        public static InitialSync parse(String value) {
            String v = value == null ? "" : value.trim();
            switch (v.toLowerCase(java.util.Locale.ROOT)) {
                case "full":
                    return new InitialSync(Kind.FULL, null);
                case "skip":
                    return new InitialSync(Kind.SKIP, null);
                case "latest":
                    return new InitialSync(Kind.LATEST, null);
                default:
                    try {
                        return new InitialSync(Kind.DATE, Instant.parse(v));
                    } catch (DateTimeParseException e) {
                        throw new ConfigException(INITIAL_SYNC, value,
                                "must be full, skip, latest or an ISO-8601 date-time such as 2024-05-01T00:00:00Z");
                    }
            }
        }
    }

    /** A partition count, or nothing (derived from topic.creation.*, else 1). */
    private static final class OptionalCount implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value != null && ((Integer) value < 1 || (Integer) value > 10_000)) {
                throw new ConfigException(name, value, "must be between 1 and 10000 (the change topics' partition count), or left out");
            }
        }

        @Override
        public String toString() {
            return "[1,...,10000], or empty to derive it from topic.creation.*";
        }
    }

    private static final class InitialSyncValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            InitialSync.parse((String) value);
        }

        @Override
        public String toString() {
            return "full, skip, latest, or an ISO-8601 date-time";
        }
    }
}
