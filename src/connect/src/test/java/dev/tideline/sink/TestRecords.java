package dev.tideline.sink;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.sink.check.RecordShape;
import dev.tideline.sink.config.RecordSafetySettings;
import dev.tideline.sink.config.TombstoneAction;
import dev.tideline.sink.decode.RecordDecoder;
import dev.tideline.sink.decode.SinkChange;
import dev.tideline.sink.decode.UpdateDescription;
import dev.tideline.sink.route.RoutedChange;
import java.util.Optional;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/** Builders for records and changes in sink unit tests. */
public final class TestRecords {
    /** A decoder as the sink builds one, with the default record.max.bytes. */
    public static RecordDecoder decoder(TombstoneAction tombstones, Optional<String> versionField, boolean rawDocuments) {
        return new RecordDecoder(tombstones, versionField, rawDocuments,
                new RecordShape(RecordSafetySettings.DEFAULT_RECORD_MAX_BYTES, RecordSafetySettings.RECORD_MAX_BYTES));
    }

    /** {@link #decoder(TombstoneAction, Optional, boolean)} with documents as objects (what peer mode reads). */
    public static RecordDecoder decoder(TombstoneAction tombstones, Optional<String> versionField) {
        return decoder(tombstones, versionField, false);
    }

    public static final Namespace SHOP_ORDERS = new Namespace("shop", "orders");

    private TestRecords() {
    }

    public static SinkRecord record(String topic, long offset, Object key, Object value) {
        return new SinkRecord(topic, 0, null, key, null, value, offset);
    }

    public static BsonDocument doc(int id, String name) {
        return new BsonDocument("_id", new BsonInt32(id)).append("name", new BsonString(name));
    }

    public static ChangeEvent event(Op op, Namespace ns, int id, BsonDocument document, Integer clusterSeconds) {
        return new ChangeEvent(op, ns, new BsonInt32(id), document,
                clusterSeconds == null ? null : new BsonTimestamp(clusterSeconds, 1), 1_700_000_000_000L, null);
    }

    /** A change record in the given form, key and value as the source writes them. */
    public static SinkRecord envelopeRecord(String topic, long offset, ChangeEvent e, ValueFormat format) {
        return record(topic, offset, EnvelopeCodec.toKey(e.id(), format), EnvelopeCodec.toValue(e, format));
    }

    public static RoutedChange write(Namespace ns, int id, String name, BsonValue version, long offset) {
        SinkChange c = new SinkChange(record("t", offset, null, null), SinkChange.Kind.WRITE, ns, new BsonInt32(id),
                doc(id, name), version);
        return new RoutedChange(c, ns);
    }

    public static RoutedChange delete(Namespace ns, int id, BsonValue version, long offset) {
        SinkChange c = new SinkChange(record("t", offset, null, null), SinkChange.Kind.DELETE, ns, new BsonInt32(id),
                null, version);
        return new RoutedChange(c, ns);
    }

    /** A partial update of document {@code id}: the MongoDB update description given as JSON. */
    public static RoutedChange update(Namespace ns, int id, String descriptionJson, BsonValue version, long offset) {
        BsonDocument d = BsonDocument.parse(descriptionJson);
        var description = new UpdateDescription(d.getDocument("updatedFields", new BsonDocument()),
                d.getArray("removedFields", new org.bson.BsonArray()).stream().map(v -> v.asString().getValue()).toList(),
                d.getArray("truncatedArrays", new org.bson.BsonArray()).stream().map(v -> new UpdateDescription.Truncation(
                        v.asDocument().getString("field").getValue(), v.asDocument().getInt32("newSize").getValue())).toList());
        return new RoutedChange(SinkChange.update(record("t", offset, null, null), ns, new BsonInt32(id), description, version), ns);
    }

    public static BsonTimestamp ts(int seconds) {
        return new BsonTimestamp(seconds, 1);
    }
}
