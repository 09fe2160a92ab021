package dev.tideline.record;

import dev.tideline.event.BsonCorpus;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.StringConverter;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/** Each form through the converter it goes with, as the worker runs them, and back: exact. */
class RecordFormTest {
    private static final String TOPIC = "tideline.shop.orders";

    private static Converter converter(Converter c, boolean schemas, boolean isKey) {
        c.configure(Map.of("schemas.enable", Boolean.toString(schemas)), isKey);
        return c;
    }

    private static SchemaAndValue roundTrip(Converter c, org.apache.kafka.connect.data.Schema schema, Object value) {
        byte[] wire = c.fromConnectData(TOPIC, schema, value);
        return c.toConnectData(TOPIC, wire);
    }

    /** ByteArrayConverter's contract (it lives in connect-runtime, which the IT runs): bytes in, bytes out, nothing else. */
    private static final class BytesOnlyConverter implements Converter {
        @Override
        public void configure(Map<String, ?> configs, boolean isKey) {
        }

        @Override
        public byte[] fromConnectData(String topic, org.apache.kafka.connect.data.Schema schema, Object value) {
            if (schema != null && schema.type() != org.apache.kafka.connect.data.Schema.Type.BYTES) {
                throw new org.apache.kafka.connect.errors.DataException("schema must be BYTES, got " + schema.type());
            }
            if (value != null && !(value instanceof byte[])) {
                throw new org.apache.kafka.connect.errors.DataException("not bytes: " + value.getClass());
            }
            return (byte[]) value;
        }

        @Override
        public SchemaAndValue toConnectData(String topic, byte[] value) {
            return new SchemaAndValue(org.apache.kafka.connect.data.Schema.OPTIONAL_BYTES_SCHEMA, value);
        }
    }

    @Test
    void textFormThroughStringConverterIsCanonicalExtendedJsonAndExact() {
        RecordForm form = RecordForm.of(ValueFormat.TEXT);
        BsonDocument original = BsonCorpus.document();
        ChangeEvent event = BsonCorpus.event(original);
        Converter c = converter(new StringConverter(), false, false);

        byte[] wire = c.fromConnectData(TOPIC, form.valueSchema(), form.value(event));
        String text = new String(wire, StandardCharsets.UTF_8);
        Object consumed = c.toConnectData(TOPIC, wire).value();
        ChangeEvent back = EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(consumed));

        assertThat(text).contains("\"$numberInt\": \"42\"").contains("\"$numberLong\": \"5\"").contains("\"$date\": {\"$numberLong\"");
        assertThat(EnvelopeCodec.toBytes(back.document())).isEqualTo(EnvelopeCodec.toBytes(original)); // order and types, to the byte
        assertThat(back).isEqualTo(event);
    }

    @Test
    void textKeyReadsBackThroughStringConverter() {
        RecordForm form = RecordForm.of(ValueFormat.TEXT);
        BsonDocument compound = new BsonDocument("z", new BsonInt32(1)).append("a", new BsonInt64(2));
        Object consumed = roundTrip(converter(new StringConverter(), false, true), form.keySchema(), form.key(compound)).value();

        BsonValue id = EnvelopeCodec.readKeyId(consumed);
        assertThat(id).isEqualTo(compound);
        assertThat(id.asDocument().keySet()).containsExactly("z", "a");
    }

    @Test
    void structFormThroughJsonConverterWithSchemasIsExact() {
        RecordForm form = RecordForm.of(ValueFormat.STRUCT);
        BsonDocument original = BsonCorpus.document();
        ChangeEvent event = BsonCorpus.event(original);
        Converter c = converter(new JsonConverter(), true, false);

        SchemaAndValue consumed = roundTrip(c, form.valueSchema(), form.value(event));
        Struct struct = (Struct) consumed.value();
        ChangeEvent back = EnvelopeCodec.fromBson(EnvelopeStruct.toEnvelope(struct));

        assertThat(EnvelopeStruct.isEnvelope(struct)).isTrue();
        assertThat(EnvelopeCodec.toBytes(back.document())).isEqualTo(EnvelopeCodec.toBytes(original));
        assertThat(back).isEqualTo(event);
    }

    @Test
    void structSchemaIsTheSameForDifferentDocumentsAndCollections() {
        RecordForm form = RecordForm.of(ValueFormat.STRUCT);
        ChangeEvent a = BsonCorpus.event(BsonCorpus.document());
        ChangeEvent b = new ChangeEvent(Op.DELETE, new Namespace("other", "things"), new BsonString("k"), null, null, 5L, null);
        Converter c = converter(new JsonConverter(), true, false);

        Struct sa = (Struct) roundTrip(c, form.valueSchema(), form.value(a)).value();
        Struct sb = (Struct) roundTrip(c, form.valueSchema(), form.value(b)).value();

        assertThat(sa.schema()).isEqualTo(sb.schema());
        assertThat(sa.schema().name()).isEqualTo(EnvelopeStruct.VALUE_SCHEMA_NAME);
        assertThat(EnvelopeCodec.fromBson(EnvelopeStruct.toEnvelope(sb))).isEqualTo(b);
    }

    @Test
    void structKeyAndTombstoneGoThroughJsonConverterWithSchemas() {
        RecordForm form = RecordForm.of(ValueFormat.STRUCT);
        BsonValue id = BsonCorpus.document().get("_id");
        Struct key = (Struct) roundTrip(converter(new JsonConverter(), true, true), form.keySchema(), form.key(id)).value();
        assertThat(EnvelopeStruct.keyId(key)).isEqualTo(id);
        assertThat(roundTrip(converter(new JsonConverter(), true, false), form.valueSchema(), null).value()).isNull();
    }

    @Test
    void noticesGoThroughEachFormsConverter() {
        BsonDocument body = new BsonDocument("type", new BsonString("drop")).append("db", new BsonString("shop"))
                .append("coll", new BsonString("orders")).append("detail", new BsonString("dropped"))
                .append("wallTime", new BsonDateTime(1_700_000_000_000L));
        Map<ValueFormat, Converter> converters = Map.of(
                ValueFormat.JSON, new JsonConverter(), ValueFormat.BSON, new BytesOnlyConverter(),
                ValueFormat.TEXT, new StringConverter(), ValueFormat.STRUCT, new JsonConverter());
        for (ValueFormat f : ValueFormat.values()) {
            RecordForm form = RecordForm.of(f);
            boolean schemas = f == ValueFormat.STRUCT;
            Converter keys = converter(f == ValueFormat.JSON || f == ValueFormat.STRUCT ? new JsonConverter()
                    : converters.get(f), schemas, true);
            Object key = roundTrip(keys, form.noticeKeySchema(), form.noticeKey("shop.orders")).value();
            Object value = roundTrip(converter(converters.get(f), schemas, false), form.noticeSchema(), form.notice(body)).value();

            assertThat(key instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : key).as(f.name()).isEqualTo("shop.orders");
            BsonDocument back = value instanceof Struct s ? new BsonDocument("type", new BsonString(s.getString("type")))
                    .append("detail", new BsonString(s.getString("detail"))) : EnvelopeCodec.readDocument(value);
            assertThat(back.getString("type").getValue()).as(f.name()).isEqualTo("drop");
            assertThat(back.getString("detail").getValue()).as(f.name()).isEqualTo("dropped");
        }
    }
}
