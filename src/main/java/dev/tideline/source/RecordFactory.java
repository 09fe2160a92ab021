package dev.tideline.source;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.ExtendedJson;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Turns what a reader captured into Kafka Connect records for ONE collection: the change record (and
 * its optional tombstone), heartbeats and control records, with the headers routers need. Holds the
 * collection's sequence counter, so it belongs to that collection's capture thread.
 */
public final class RecordFactory {
    private final Namespace ns;
    private final Map<String, Object> partition;
    private final String topic;
    private final String heartbeatTopic;
    private final String controlTopic;
    private final ValueFormat format;
    private final String tenantField;
    private final boolean tombstones;
    private final String producer;
    private final Schema schema;
    private long seq;

    public RecordFactory(Namespace ns, String topic, String heartbeatTopic, String controlTopic, ValueFormat format,
                         String tenantField, boolean tombstones, String producer) {
        this.ns = ns;
        this.partition = SourceOffset.partition(ns);
        this.topic = topic;
        this.heartbeatTopic = heartbeatTopic;
        this.controlTopic = controlTopic;
        this.format = format;
        this.tenantField = tenantField;
        this.tombstones = tombstones;
        this.producer = producer;
        this.schema = format == ValueFormat.BSON ? Schema.OPTIONAL_BYTES_SCHEMA : null;
    }

    public String topic() {
        return topic;
    }

    /** Appends the records for one captured item. */
    public void append(Captured item, List<SourceRecord> out) {
        Map<String, Object> offset = item.offset().toMap();
        if (item instanceof Captured.Change change) {
            appendChange(change.event(), offset, out);
        } else if (item instanceof Captured.Heartbeat) {
            BsonDocument value = new BsonDocument("db", new BsonString(ns.db())).append("coll", new BsonString(ns.coll()))
                    .append("wallTime", new BsonDateTime(System.currentTimeMillis()));
            out.add(new SourceRecord(partition, offset, heartbeatTopic, null, schema, namespaceKey(), schema, body(value),
                    null, headers(EventHeaders.KIND_HEARTBEAT)));
        } else if (item instanceof Captured.Control control) {
            BsonDocument value = new BsonDocument("type", new BsonString(control.type()))
                    .append("db", new BsonString(ns.db())).append("coll", new BsonString(ns.coll()))
                    .append("detail", new BsonString(control.detail()))
                    .append("wallTime", new BsonDateTime(System.currentTimeMillis()));
            out.add(new SourceRecord(partition, offset, controlTopic, null, schema, namespaceKey(), schema, body(value),
                    null, headers(EventHeaders.KIND_CONTROL)));
        }
    }

    private void appendChange(ChangeEvent e, Map<String, Object> offset, List<SourceRecord> out) {
        ConnectHeaders headers = headers(EventHeaders.KIND_CHANGE);
        headers.addString(EventHeaders.OP, e.op().wireName());
        String tenant = tenantOf(e.document());
        if (tenant != null) {
            headers.addString(EventHeaders.TENANT, tenant);
        }
        if (e.origin() != null) {
            headers.addString(EventHeaders.ORIGIN, e.origin());
        }
        headers.addString(EventHeaders.SEQ, Long.toString(++seq));
        Object key = EnvelopeCodec.toKey(e.id(), format);
        Long timestamp = e.wallTimeMillis() > 0 ? e.wallTimeMillis() : null;
        out.add(new SourceRecord(partition, offset, topic, null, schema, key, schema, EnvelopeCodec.toValue(e, format),
                timestamp, headers));
        if (tombstones && e.isDelete()) {
            // compaction forgets the key; same offset, so committing it twice is harmless
            out.add(new SourceRecord(partition, offset, topic, null, schema, key, schema, null, timestamp,
                    headers(EventHeaders.KIND_CHANGE).addString(EventHeaders.OP, "tombstone")));
        }
    }

    /** Heartbeat and control keys: the namespace, as bytes in the bson form (the key converter there is ByteArrayConverter). */
    private Object namespaceKey() {
        return format == ValueFormat.JSON ? ns.fullName() : ns.fullName().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private Object body(BsonDocument value) {
        return format == ValueFormat.JSON ? ExtendedJson.toMap(value) : EnvelopeCodec.toBytes(value);
    }

    private ConnectHeaders headers(String kind) {
        ConnectHeaders h = new ConnectHeaders();
        h.addString(EventHeaders.KIND, kind);
        h.addString(EventHeaders.NAMESPACE, ns.fullName());
        h.addString(EventHeaders.PRODUCER, producer);
        return h;
    }

    /** The tenant header value: the configured field (dotted path) when it holds a scalar. */
    String tenantOf(BsonDocument document) {
        if (tenantField == null || document == null) {
            return null;
        }
        BsonValue v = document;
        for (String part : tenantField.split("\\.")) {
            if (v == null || !v.isDocument()) {
                return null;
            }
            v = v.asDocument().get(part);
        }
        if (v == null || v.isNull() || v.isDocument() || v.isArray()) {
            return null;
        }
        if (v.isString()) {
            return v.asString().getValue();
        }
        if (v.isObjectId()) {
            return v.asObjectId().getValue().toHexString();
        }
        Object java = ExtendedJson.toJava(v);
        return String.valueOf(java instanceof Map<?, ?> m ? m.values().iterator().next() : java);
    }
}
