package dev.tideline.sink.decode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.sink.TestRecords;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.record.RecordForm;
import dev.tideline.event.ValueFormat;
import dev.tideline.sink.config.TombstoneAction;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.StringConverter;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** The text and struct forms, through StringConverter and JsonConverter with schemas, read by the sink. */
class RecordFormsDecodeTest {
    private static final Namespace NS = new Namespace("shop", "orders");
    private final RecordDecoder decoder = TestRecords.decoder(TombstoneAction.DELETE, Optional.empty());

    private static SinkRecord through(Converter keys, Converter values, ValueFormat f, ChangeEvent e, boolean tombstone) {
        RecordForm form = RecordForm.of(f);
        SchemaAndValue k = keys.toConnectData("t", keys.fromConnectData("t", form.keySchema(), form.key(e.id())));
        Object v = tombstone ? null : form.value(e);
        SchemaAndValue value = values.toConnectData("t", values.fromConnectData("t", form.valueSchema(), v));
        return new SinkRecord("t", 0, k.schema(), k.value(), value.schema(), value.value(), 1);
    }

    private static Converter json(boolean isKey) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "true"), isKey);
        return c;
    }

    private static Converter string(boolean isKey) {
        StringConverter c = new StringConverter();
        c.configure(Map.of(), isKey);
        return c;
    }

    @Test
    void structAndTextFormsDecodeToTheSameChange() {
        BsonDocument doc = BsonDocument.parse("{\"_id\": {\"$numberLong\": \"9\"}, \"n\": 1, \"l\": {\"$numberLong\": \"2\"}}");
        ChangeEvent e = new ChangeEvent(Op.UPDATE, NS, new BsonInt64(9), doc, new BsonTimestamp(50, 3), 10L, null);
        for (ValueFormat f : new ValueFormat[] {ValueFormat.STRUCT, ValueFormat.TEXT}) {
            SinkRecord r = f == ValueFormat.STRUCT ? through(json(true), json(false), f, e, false)
                    : through(string(true), string(false), f, e, false);
            SinkChange c = (SinkChange) decoder.decode(r);
            assertThat(c.kind()).as(f.name()).isEqualTo(SinkChange.Kind.WRITE);
            assertThat(c.document()).as(f.name()).isEqualTo(doc);
            assertThat(c.sourceNs()).as(f.name()).isEqualTo(NS);
            assertThat(c.version()).as(f.name()).isEqualTo(new BsonTimestamp(50, 3));
        }
    }

    @Test
    void deletesInStructAndTextFormsAreDeletes() {
        ChangeEvent e = new ChangeEvent(Op.DELETE, NS, new BsonInt64(9), null, new BsonTimestamp(60, 1), 10L, null);
        SinkChange s = (SinkChange) decoder.decode(through(json(true), json(false), ValueFormat.STRUCT, e, false));
        SinkChange t = (SinkChange) decoder.decode(through(string(true), string(false), ValueFormat.TEXT, e, false));
        assertThat(s.isDelete()).isTrue();
        assertThat(s.id()).isEqualTo(new BsonInt64(9));
        assertThat(s.version()).isEqualTo(new BsonTimestamp(60, 1));
        assertThat(t.isDelete()).isTrue();
    }

    @Test
    void tombstonesInStructAndTextFormsDeleteTheKeysId() {
        ChangeEvent e = new ChangeEvent(Op.DELETE, NS, new BsonInt64(9), null, null, 10L, null);
        SinkChange s = (SinkChange) decoder.decode(through(json(true), json(false), ValueFormat.STRUCT, e, true));
        SinkChange t = (SinkChange) decoder.decode(through(string(true), string(false), ValueFormat.TEXT, e, true));
        assertThat(s.isDelete()).isTrue();
        assertThat(s.id()).isEqualTo(new BsonInt64(9));
        assertThat(t.isDelete()).isTrue();
        assertThat(t.id()).isEqualTo(new BsonInt64(9));
    }
}
