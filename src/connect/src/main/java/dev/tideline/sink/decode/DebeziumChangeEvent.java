package dev.tideline.sink.decode;

import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueShape;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.json.JsonParseException;

/**
 * A Debezium MongoDB change event (connector {@code io.debezium.connector.mongodb.MongoDbConnector},
 * 2.x/3.x envelope): {@code {before, after, updateDescription, source: {connector: "mongodb", db,
 * collection, ts_ms, ord, ...}, op, ts_ms}} where {@code after} (and {@code before}) is the document
 * as Extended JSON text, and the record key is {@code {"id": "<_id as Extended JSON>"}}.
 *
 * <p>op {@code c} (create), {@code r} (snapshot read) and {@code u} with {@code after} (Debezium's
 * default {@code capture.mode=change_streams_update_full}) become a whole-document write; {@code d} a
 * delete of the key's id. An update with only {@code updateDescription} ({@code capture.mode=change_streams})
 * becomes a partial update of the key's id, applied onto the destination's copy; {@code t} (truncate) is
 * reported, never applied. The version for the stale-write guard is the source's
 * {@code (ts_ms seconds, ord)}, the change's cluster time; snapshot reads carry none, like Tideline's own copies.
 */
public final class DebeziumChangeEvent {
    private DebeziumChangeEvent() {
    }

    /** A Debezium envelope: a string {@code op}, a {@code source} document, and an {@code after} or {@code before} field. */
    public static boolean matches(BsonDocument d) {
        BsonValue op = d.get("op");
        BsonValue source = d.get("source");
        return op != null && op.isString() && source != null && source.isDocument()
                && (d.containsKey("after") || d.containsKey("before") || d.containsKey("updateDescription"));
    }

    public static Decoded decode(SinkRecord record, BsonDocument d) {
        String op = d.getString("op").getValue();
        BsonDocument source = d.getDocument("source");
        Namespace ns = namespace(source);
        switch (op) {
            case "d":
                return new SinkChange(record, SinkChange.Kind.DELETE, ns, KeyReader.id(record.key()), null, clusterTime(source));
            case "c":
            case "r":
            case "u": {
                BsonDocument after = document(d.get("after"), "after");
                if (after == null) {
                    BsonValue description = d.get("updateDescription");
                    if (op.equals("u") && description != null && !description.isNull()) {
                        // capture.mode=change_streams: what changed, not what the document now is
                        return SinkChange.update(record, ns, updatedId(record, d),
                                UpdateDescription.fromDebezium(description), clusterTime(source));
                    }
                    throw new MalformedRecordException("a Debezium '" + op + "' event must carry 'after'"
                            + (op.equals("u") ? " or 'updateDescription'" : ""));
                }
                BsonValue id = after.get("_id");
                if (id == null) {
                    throw new MalformedRecordException("the Debezium 'after' document has no _id");
                }
                return new SinkChange(record, SinkChange.Kind.WRITE, ns, id, after, op.equals("r") ? null : clusterTime(source));
            }
            case "t":
                return new Decoded.Skip("a Debezium truncate event: reported, never applied");
            default:
                throw new MalformedRecordException("unknown Debezium op '" + op + "': expected c, u, d, r or t");
        }
    }

    /** The updated document's id: the record key, else the event's {@code filter} ({@code {"_id": ...}} as Extended JSON). */
    private static BsonValue updatedId(SinkRecord record, BsonDocument d) {
        if (record.key() != null) {
            return KeyReader.id(record.key());
        }
        BsonDocument filter = document(d.get("filter"), "filter");
        if (filter == null || !filter.containsKey("_id")) {
            throw new MalformedRecordException("a Debezium update without 'after' needs the record key or a 'filter' naming _id");
        }
        return filter.get("_id");
    }

    /** An id as Debezium writes it in keys: Extended JSON of the value alone, e.g. {@code {"$oid": "..."}} or {@code 1004}. */
    static BsonValue parseId(String json) {
        ValueShape.requireJson(json, "Debezium key id");
        try {
            return BsonDocument.parse("{\"_id\": " + json + "}").get("_id");
        } catch (JsonParseException | BsonInvalidOperationException e) {
            throw new MalformedRecordException("Debezium key id is not Extended JSON: " + e.getMessage(), e);
        }
    }

    private static BsonDocument document(BsonValue v, String field) {
        if (v == null || v.isNull()) {
            return null;
        }
        if (v.isDocument()) {
            return v.asDocument();
        }
        if (!v.isString()) {
            throw new MalformedRecordException("Debezium field '" + field + "' must be Extended JSON text, got " + v.getBsonType());
        }
        ValueShape.requireJson(v.asString().getValue(), "Debezium field '" + field + "'");
        try {
            return BsonDocument.parse(v.asString().getValue());
        } catch (JsonParseException | BsonInvalidOperationException e) {
            throw new MalformedRecordException("Debezium field '" + field + "' is not an Extended JSON document: " + e.getMessage(), e);
        }
    }

    private static BsonTimestamp clusterTime(BsonDocument source) {
        BsonValue ts = source.get("ts_ms");
        BsonValue ord = source.get("ord");
        if (ts == null || !ts.isNumber()) {
            return null;
        }
        int increment = ord != null && ord.isNumber() ? ord.asNumber().intValue() : 0;
        return new BsonTimestamp((int) (ts.asNumber().longValue() / 1000), increment);
    }

    private static Namespace namespace(BsonDocument source) {
        return OfficialChangeEvent.namespace(source.get("db"), source.get("collection"), "source namespace in Debezium event");
    }
}
