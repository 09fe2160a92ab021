package dev.tideline.record;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.ExtendedJson;
import dev.tideline.event.ValueFormat;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.connect.data.Schema;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The key, value and schemas of the records of one {@link ValueFormat}, so that each form works with
 * its converter end to end: nothing in a {@code bson} record is anything but bytes (ByteArrayConverter
 * refuses strings), nothing in a {@code text} record anything but strings, and {@code struct} records
 * always carry their fixed schemas. Notices (heartbeat and control records) are keyed by the
 * namespace name.
 */
public final class RecordForm {
    private final ValueFormat format;

    private RecordForm(ValueFormat format) {
        this.format = format;
    }

    public static RecordForm of(ValueFormat format) {
        return new RecordForm(format);
    }

    public ValueFormat format() {
        return format;
    }

    public Schema keySchema() {
        return switch (format) {
            case JSON -> null;
            case BSON -> Schema.OPTIONAL_BYTES_SCHEMA;
            case TEXT -> Schema.OPTIONAL_STRING_SCHEMA;
            case STRUCT -> EnvelopeStruct.KEY_SCHEMA;
        };
    }

    public Schema valueSchema() {
        return switch (format) {
            case JSON -> null;
            case BSON -> Schema.OPTIONAL_BYTES_SCHEMA;
            case TEXT -> Schema.OPTIONAL_STRING_SCHEMA;
            case STRUCT -> EnvelopeStruct.VALUE_SCHEMA;
        };
    }

    /** The record key of a document id: {@code {"_id": ...}} in this form. */
    public Object key(BsonValue id) {
        return switch (format) {
            case JSON, BSON -> EnvelopeCodec.toKey(id, format);
            case TEXT -> new BsonDocument(EnvelopeCodec.KEY_ID, id).toJson(EnvelopeStruct.CANONICAL);
            case STRUCT -> EnvelopeStruct.key(id);
        };
    }

    /** The record value of a change. */
    public Object value(ChangeEvent e) {
        return switch (format) {
            case JSON, BSON -> EnvelopeCodec.toValue(e, format);
            case TEXT -> EnvelopeCodec.toBson(e).toJson(EnvelopeStruct.CANONICAL);
            case STRUCT -> EnvelopeStruct.toStruct(e);
        };
    }

    public Schema noticeKeySchema() {
        return switch (format) {
            case JSON -> null;
            case BSON -> Schema.OPTIONAL_BYTES_SCHEMA;
            case TEXT, STRUCT -> Schema.OPTIONAL_STRING_SCHEMA;
        };
    }

    /** The key of a heartbeat or control record: the namespace name (UTF-8 bytes in the bson form). */
    public Object noticeKey(String name) {
        return format == ValueFormat.BSON ? name.getBytes(StandardCharsets.UTF_8) : name;
    }

    public Schema noticeSchema() {
        return format == ValueFormat.STRUCT ? EnvelopeStruct.NOTICE_SCHEMA : valueSchema();
    }

    /*
     * A resnapshot marker travels on a CHANGE topic, so in the struct form it carries that topic's key
     * and value schemas: a schema registry keeps one subject per topic and refuses a second, unrelated
     * record schema under it. The other forms have no schema and keep the notice shapes.
     */

    public Schema markerKeySchema() {
        return format == ValueFormat.STRUCT ? EnvelopeStruct.KEY_SCHEMA : noticeKeySchema();
    }

    /** A marker's key: the namespace name ({@code _id} set to it in the struct form). */
    public Object markerKey(String name) {
        return format == ValueFormat.STRUCT ? EnvelopeStruct.key(new BsonString(name)) : noticeKey(name);
    }

    public Schema markerSchema() {
        return format == ValueFormat.STRUCT ? EnvelopeStruct.VALUE_SCHEMA : noticeSchema();
    }

    /** A marker's value: its body, as a change envelope whose op is the marker's type in the struct form. */
    public Object marker(BsonDocument body) {
        return format == ValueFormat.STRUCT ? EnvelopeStruct.markerEnvelope(body) : notice(body);
    }

    /** The value of a heartbeat or control record. */
    public Object notice(BsonDocument body) {
        return switch (format) {
            case JSON -> ExtendedJson.toMap(body);
            case BSON -> EnvelopeCodec.toBytes(body);
            case TEXT -> body.toJson(EnvelopeStruct.CANONICAL);
            case STRUCT -> EnvelopeStruct.notice(body);
        };
    }
}
