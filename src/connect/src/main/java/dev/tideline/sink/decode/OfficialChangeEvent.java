package dev.tideline.sink.decode;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.Namespace;
import java.util.Set;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * A change-stream event as MongoDB's official source connector publishes it by default
 * ({@code com.mongodb.kafka.connect.MongoSourceConnector}, {@code publish.full.document.only=false}):
 * the server's event document {@code {_id: <resume token>, operationType, clusterTime, ns: {db, coll},
 * documentKey: {_id}, fullDocument, updateDescription}}. Its record key is the document key by default
 * ({@code change.stream.document.key.as.key=true}) or the resume token: the document id is read from
 * {@code documentKey} either way.
 *
 * <p>insert, replace, and update WITH {@code fullDocument} become a whole-document write; delete a
 * delete. An update that carries only {@code updateDescription} (the official connector's default
 * {@code change.stream.full.document=default}, and an {@code updateLookup} of a document deleted
 * since) becomes a partial update of {@code documentKey._id}, applied onto the destination's copy of
 * the document (see {@code sink.write.PartialUpdates}). drop, rename,
 * dropDatabase and invalidate are reported, never applied, as for Tideline's own control records.
 * (With {@code publish.full.document.only=true} the records are plain documents: see {@link RecordDecoder}.)
 */
public final class OfficialChangeEvent {
    private static final Set<String> NOT_APPLIED = Set.of("drop", "rename", "dropDatabase", "invalidate");

    private OfficialChangeEvent() {
    }

    /** An event document: a string {@code operationType} and a {@code documentKey} or {@code ns} document. */
    public static boolean matches(BsonDocument d) {
        BsonValue type = d.get("operationType");
        return type != null && type.isString()
                && (isDocument(d.get("documentKey")) || isDocument(d.get("ns")));
    }

    public static Decoded decode(SinkRecord record, BsonDocument d) {
        String type = d.getString("operationType").getValue();
        if (NOT_APPLIED.contains(type)) {
            return new Decoded.Skip("a " + type + " event: reported, never applied");
        }
        Namespace ns = namespace(d.get("ns"));
        BsonValue keyId = documentKeyId(d);
        BsonTimestamp clusterTime = d.get("clusterTime") instanceof BsonTimestamp t ? t : null;
        Decoded decoded = decode(record, type, ns, keyId, clusterTime, d);
        // the shard key fields of documentKey travel with the change, as in Tideline's own envelope
        BsonDocument shardKey = d.get("documentKey") instanceof BsonDocument key ? ChangeEvent.shardKeyOf(key) : null;
        return decoded instanceof SinkChange c ? c.withShardKey(shardKey) : decoded;
    }

    private static Decoded decode(SinkRecord record, String type, Namespace ns, BsonValue keyId, BsonTimestamp clusterTime,
                                  BsonDocument d) {
        switch (type) {
            case "delete":
                if (keyId == null) {
                    throw new MalformedRecordException("delete event has no documentKey._id");
                }
                return new SinkChange(record, SinkChange.Kind.DELETE, ns, keyId, null, clusterTime);
            case "insert":
            case "replace":
            case "update": {
                BsonValue full = d.get("fullDocument");
                boolean whole = full != null && full.isDocument() && full.asDocument().containsKey("_id");
                if (!whole && type.equals("update") && d.containsKey("updateDescription")) {
                    // change.stream.full.document=default: what changed, not what the document now is
                    if (keyId == null) {
                        throw new MalformedRecordException("an update event without fullDocument must name its document in documentKey._id");
                    }
                    return SinkChange.update(record, ns, keyId, UpdateDescription.fromChangeEvent(d.get("updateDescription")), clusterTime);
                }
                if (full == null) {
                    throw new MalformedRecordException("an " + type + " event without fullDocument and without "
                            + "updateDescription cannot be applied");
                }
                if (!whole) {
                    if (!type.equals("insert")) {
                        // looked up after a delete (fullDocument null, or a producer's partial document): the delete follows
                        return new Decoded.Skip("the source could no longer read the document of this " + type);
                    }
                    throw new MalformedRecordException("an insert event must carry the whole document with its _id");
                }
                // The document names its own _id; documentKey, when it has one, must agree.
                BsonDocument doc = full.asDocument();
                BsonValue id = doc.get("_id");
                if (keyId != null && !id.equals(keyId)) {
                    throw new MalformedRecordException("fullDocument._id " + Ids.show(id)
                            + " differs from documentKey._id " + Ids.show(keyId));
                }
                return new SinkChange(record, SinkChange.Kind.WRITE, ns, id, doc, clusterTime);
            }
            default:
                throw new MalformedRecordException("unknown operationType '" + type
                        + "': expected insert, update, replace, delete, drop, rename, dropDatabase or invalidate");
        }
    }

    /** documentKey._id, or null when the event has none. */
    private static BsonValue documentKeyId(BsonDocument d) {
        BsonValue key = d.get("documentKey");
        return key != null && key.isDocument() ? key.asDocument().get("_id") : null;
    }

    private static Namespace namespace(BsonValue ns) {
        if (ns == null || !ns.isDocument()) {
            return null; // routed by topic then (topic.namespace.map or database + topic)
        }
        return namespace(ns.asDocument().get("db"), ns.asDocument().get("coll"), "ns in change event");
    }

    /** A namespace from a foreign event's string fields; null (routed by topic) when either is not a string. */
    static Namespace namespace(BsonValue db, BsonValue coll, String where) {
        if (db == null || !db.isString() || coll == null || !coll.isString()) {
            return null;
        }
        try {
            return new Namespace(db.asString().getValue(), coll.asString().getValue());
        } catch (IllegalArgumentException e) {
            throw new MalformedRecordException("bad " + where + ": " + e.getMessage(), e);
        }
    }

    private static boolean isDocument(BsonValue v) {
        return v != null && v.isDocument();
    }
}
