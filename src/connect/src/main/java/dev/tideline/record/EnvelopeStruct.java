package dev.tideline.record;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.ValueShape;
import java.util.Date;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonParseException;
import org.bson.json.JsonWriterSettings;

/**
 * The {@code struct} form: the change envelope as a Connect Struct with ONE fixed schema, whatever
 * the collection or the document. A document's fields vary from one document to the next, so a
 * schema derived from them would change with every record (and break schema-registry compatibility);
 * here the document, and the {@code _id}, travel as canonical Extended JSON text, which keeps every
 * BSON type. Field names are those of the envelope ({@link EnvelopeCodec}); {@code clusterTime} is the
 * BSON timestamp as one int64, {@code (seconds << 32) | increment}, as BSON stores it.
 */
public final class EnvelopeStruct {
    public static final String VALUE_SCHEMA_NAME = "dev.tideline.ChangeEnvelope";
    public static final String KEY_SCHEMA_NAME = "dev.tideline.DocumentKey";
    public static final String NOTICE_SCHEMA_NAME = "dev.tideline.Notice";

    static final JsonWriterSettings CANONICAL = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();
    private static final Schema OPTIONAL_TIMESTAMP = Timestamp.builder().optional().build();

    public static final Schema KEY_SCHEMA = SchemaBuilder.struct().name(KEY_SCHEMA_NAME).version(EnvelopeCodec.VERSION)
            .doc("The document's _id as canonical Extended JSON")
            .field(EnvelopeCodec.KEY_ID, Schema.STRING_SCHEMA)
            .build();

    /** Optional, so a tombstone after a delete can carry the same schema. */
    public static final Schema VALUE_SCHEMA = SchemaBuilder.struct().name(VALUE_SCHEMA_NAME).version(EnvelopeCodec.VERSION)
            .doc("A Tideline change envelope; id and document are canonical Extended JSON")
            .optional()
            .field(EnvelopeCodec.F_VERSION, Schema.INT32_SCHEMA)
            .field(EnvelopeCodec.F_OP, Schema.STRING_SCHEMA)
            .field(EnvelopeCodec.F_DB, Schema.STRING_SCHEMA)
            .field(EnvelopeCodec.F_COLL, Schema.STRING_SCHEMA)
            .field(EnvelopeCodec.F_ID, Schema.STRING_SCHEMA)
            .field(EnvelopeCodec.F_DOCUMENT, Schema.OPTIONAL_STRING_SCHEMA)
            .field(EnvelopeCodec.F_CLUSTER_TIME, Schema.OPTIONAL_INT64_SCHEMA)
            .field(EnvelopeCodec.F_WALL_TIME, OPTIONAL_TIMESTAMP)
            .field(EnvelopeCodec.F_ORIGIN, Schema.OPTIONAL_STRING_SCHEMA)
            // added after the first release: optional and last, so the schema stays backward compatible
            .field(EnvelopeCodec.F_SHARD_KEY, Schema.OPTIONAL_STRING_SCHEMA)
            .build();

    /** Heartbeat and control records in the struct form. */
    public static final Schema NOTICE_SCHEMA = SchemaBuilder.struct().name(NOTICE_SCHEMA_NAME).version(1)
            .doc("A Tideline heartbeat (no type) or control notice")
            .field("type", Schema.OPTIONAL_STRING_SCHEMA)
            .field("db", Schema.STRING_SCHEMA)
            .field("coll", Schema.STRING_SCHEMA)
            .field("detail", Schema.OPTIONAL_STRING_SCHEMA)
            .field("wallTime", OPTIONAL_TIMESTAMP)
            .build();

    private EnvelopeStruct() {
    }

    public static Struct toStruct(ChangeEvent e) {
        Struct s = new Struct(VALUE_SCHEMA)
                .put(EnvelopeCodec.F_VERSION, EnvelopeCodec.VERSION)
                .put(EnvelopeCodec.F_OP, e.op().wireName())
                .put(EnvelopeCodec.F_DB, e.ns().db())
                .put(EnvelopeCodec.F_COLL, e.ns().coll())
                .put(EnvelopeCodec.F_ID, valueToJson(e.id()))
                .put(EnvelopeCodec.F_WALL_TIME, new Date(e.wallTimeMillis()));
        if (e.document() != null) {
            s.put(EnvelopeCodec.F_DOCUMENT, e.document().toJson(CANONICAL));
        }
        if (e.clusterTime() != null) {
            s.put(EnvelopeCodec.F_CLUSTER_TIME, e.clusterTime().getValue());
        }
        if (e.origin() != null) {
            s.put(EnvelopeCodec.F_ORIGIN, e.origin());
        }
        if (e.shardKey() != null) {
            s.put(EnvelopeCodec.F_SHARD_KEY, e.shardKey().toJson(CANONICAL));
        }
        return s;
    }

    public static Struct key(BsonValue id) {
        return new Struct(KEY_SCHEMA).put(EnvelopeCodec.KEY_ID, valueToJson(id));
    }

    public static Struct notice(BsonDocument body) {
        Struct s = new Struct(NOTICE_SCHEMA);
        for (String f : new String[] {"type", "db", "coll", "detail"}) {
            BsonValue v = body.get(f);
            if (v != null && v.isString()) {
                s.put(f, v.asString().getValue());
            }
        }
        BsonValue wall = body.get("wallTime");
        if (wall != null && wall.isDateTime()) {
            s.put("wallTime", new Date(wall.asDateTime().getValue()));
        }
        return s;
    }

    /**
     * A resnapshot marker in the change envelope's schema: op is the marker's type ({@code resnapshot.begin}
     * or {@code resnapshot.complete}), id the namespace name, document the marker's body. Readers tell it
     * from a change by its {@code tl.kind=control} header.
     */
    public static Struct markerEnvelope(BsonDocument body) {
        String db = body.getString("db").getValue();
        String coll = body.getString("coll").getValue();
        Struct s = new Struct(VALUE_SCHEMA)
                .put(EnvelopeCodec.F_VERSION, EnvelopeCodec.VERSION)
                .put(EnvelopeCodec.F_OP, body.getString("type").getValue())
                .put(EnvelopeCodec.F_DB, db)
                .put(EnvelopeCodec.F_COLL, coll)
                .put(EnvelopeCodec.F_ID, valueToJson(new BsonString(db + "." + coll)))
                .put(EnvelopeCodec.F_DOCUMENT, body.toJson(CANONICAL));
        BsonValue wall = body.get("wallTime");
        if (wall != null && wall.isDateTime()) {
            s.put(EnvelopeCodec.F_WALL_TIME, new Date(wall.asDateTime().getValue()));
        }
        return s;
    }

    public static boolean isEnvelope(Struct s) {
        return VALUE_SCHEMA_NAME.equals(s.schema().name());
    }

    public static boolean isKey(Struct s) {
        return KEY_SCHEMA_NAME.equals(s.schema().name());
    }

    /**
     * The envelope as BSON, to be checked by {@link EnvelopeCodec#fromBson}. Reads by field name, so a
     * Struct that went through JsonConverter (same names, schema rebuilt from the JSON) reads too.
     */
    public static BsonDocument toEnvelope(Struct s) {
        BsonDocument d = new BsonDocument();
        try {
            d.append(EnvelopeCodec.F_VERSION, new BsonInt32(s.getInt32(EnvelopeCodec.F_VERSION)));
            d.append(EnvelopeCodec.F_OP, new BsonString(s.getString(EnvelopeCodec.F_OP)));
            d.append(EnvelopeCodec.F_DB, new BsonString(s.getString(EnvelopeCodec.F_DB)));
            d.append(EnvelopeCodec.F_COLL, new BsonString(s.getString(EnvelopeCodec.F_COLL)));
            d.append(EnvelopeCodec.F_ID, valueFromJson(s.getString(EnvelopeCodec.F_ID), EnvelopeCodec.F_ID));
            String doc = s.getString(EnvelopeCodec.F_DOCUMENT);
            if (doc != null) {
                d.append(EnvelopeCodec.F_DOCUMENT, documentFromJson(doc, EnvelopeCodec.F_DOCUMENT));
            }
            Long ct = s.getInt64(EnvelopeCodec.F_CLUSTER_TIME);
            if (ct != null) {
                d.append(EnvelopeCodec.F_CLUSTER_TIME, new BsonTimestamp(ct));
            }
            Object wall = s.get(EnvelopeCodec.F_WALL_TIME);
            if (wall instanceof Date date) {
                d.append(EnvelopeCodec.F_WALL_TIME, new BsonDateTime(date.getTime()));
            }
            String origin = s.getString(EnvelopeCodec.F_ORIGIN);
            if (origin != null) {
                d.append(EnvelopeCodec.F_ORIGIN, new BsonString(origin));
            }
            // records written before the field existed carry a schema without it
            String shardKey = s.schema().field(EnvelopeCodec.F_SHARD_KEY) == null ? null : s.getString(EnvelopeCodec.F_SHARD_KEY);
            if (shardKey != null) {
                d.append(EnvelopeCodec.F_SHARD_KEY, documentFromJson(shardKey, EnvelopeCodec.F_SHARD_KEY));
            }
        } catch (DataException | ClassCastException | NullPointerException e) {
            throw new MalformedRecordException("struct " + s.schema().name() + " is not a valid change envelope: "
                    + e.getMessage(), e);
        }
        return d;
    }

    /** The {@code _id} of a key Struct. */
    public static BsonValue keyId(Struct key) {
        try {
            return valueFromJson(key.getString(EnvelopeCodec.KEY_ID), "key " + EnvelopeCodec.KEY_ID);
        } catch (DataException e) {
            throw new MalformedRecordException("key struct " + key.schema().name() + " has no string '_id': " + e.getMessage(), e);
        }
    }

    /** One BSON value as canonical Extended JSON, e.g. {@code {"$oid": "..."}} or {@code {"$numberInt": "42"}}. */
    static String valueToJson(BsonValue v) {
        String json = new BsonDocument(EnvelopeCodec.KEY_ID, v).toJson(CANONICAL);
        return json.substring(json.indexOf(':') + 1, json.length() - 1).trim();
    }

    static BsonValue valueFromJson(String json, String field) {
        if (json == null) {
            throw new MalformedRecordException("field '" + field + "' is missing");
        }
        return documentFromJson("{\"" + EnvelopeCodec.KEY_ID + "\": " + json + "}", field).get(EnvelopeCodec.KEY_ID);
    }

    private static BsonDocument documentFromJson(String json, String field) {
        ValueShape.requireJson(json, "field '" + field + "'");
        try {
            return BsonDocument.parse(json);
        } catch (JsonParseException | org.bson.BsonInvalidOperationException e) {
            throw new MalformedRecordException("field '" + field + "' is not Extended JSON: " + e.getMessage(), e);
        }
    }
}
