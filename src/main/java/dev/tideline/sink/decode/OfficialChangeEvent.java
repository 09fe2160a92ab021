package dev.tideline.sink.decode;

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
 * documentKey: {_id}, fullDocument, updateDescription}}. Its record key is the resume token, so the
 * document id is read from {@code documentKey}.
 *
 * <p>insert, replace, and update WITH {@code fullDocument} become a whole-document write; delete a
 * delete. An update that carries only {@code updateDescription} (the official connector's default
 * {@code change.stream.full.document=default}) cannot be applied as a whole-document write: it is
 * refused with the setting to change, so it lands in the DLQ rather than being lost. drop, rename,
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
        BsonValue id = documentId(d);
        BsonTimestamp clusterTime = d.get("clusterTime") instanceof BsonTimestamp t ? t : null;
        switch (type) {
            case "delete":
                return new SinkChange(record, SinkChange.Kind.DELETE, ns, id, null, clusterTime);
            case "insert":
            case "replace":
            case "update": {
                if (!d.containsKey("fullDocument")) {
                    throw new MalformedRecordException("an " + type + " event without fullDocument (only an "
                            + "updateDescription) cannot be applied as a whole document: set "
                            + "change.stream.full.document=updateLookup on the source connector");
                }
                BsonValue full = d.get("fullDocument");
                if (!full.isDocument() || !full.asDocument().containsKey("_id")) {
                    if (!type.equals("insert")) {
                        // looked up after a delete (null on MongoDB, a delta without _id on the stand-in): the delete follows
                        return new Decoded.Skip("the source could no longer read the document of this " + type);
                    }
                    throw new MalformedRecordException("an insert event must carry the whole document with its _id");
                }
                BsonDocument doc = full.asDocument();
                if (!doc.get("_id").equals(id)) {
                    throw new MalformedRecordException("fullDocument._id " + Ids.show(doc.get("_id"))
                            + " differs from documentKey._id " + Ids.show(id));
                }
                return new SinkChange(record, SinkChange.Kind.WRITE, ns, id, doc, clusterTime);
            }
            default:
                throw new MalformedRecordException("unknown operationType '" + type
                        + "': expected insert, update, replace, delete, drop, rename, dropDatabase or invalidate");
        }
    }

    private static BsonValue documentId(BsonDocument d) {
        BsonValue key = d.get("documentKey");
        if (key == null || !key.isDocument() || !key.asDocument().containsKey("_id")) {
            throw new MalformedRecordException("change event has no documentKey._id");
        }
        return key.asDocument().get("_id");
    }

    private static Namespace namespace(BsonValue ns) {
        if (ns == null || !ns.isDocument()) {
            return null; // routed by topic then (topic.namespace.map or database + topic)
        }
        BsonValue db = ns.asDocument().get("db");
        BsonValue coll = ns.asDocument().get("coll");
        if (db == null || !db.isString() || coll == null || !coll.isString()) {
            return null;
        }
        try {
            return new Namespace(db.asString().getValue(), coll.asString().getValue());
        } catch (IllegalArgumentException e) {
            throw new MalformedRecordException("bad ns in change event: " + e.getMessage(), e);
        }
    }

    private static boolean isDocument(BsonValue v) {
        return v != null && v.isDocument();
    }
}
