package dev.tideline.sign;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.IdScope;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.event.ValueFormat;
import dev.tideline.source.RecordFactory;
import dev.tideline.source.RecordState;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.apache.kafka.connect.storage.StringConverter;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Records as a source makes them, through the converters of a worker and back, verify; anything changed does not. */
class RecordSignatureTest {
    private static final String SECRET = "the record signing key of this deployment";
    private static final RecordSignature SIGNATURE = new RecordSignature(new KeyRing(SECRET, null, RecordSignature.KEY_ID_LABEL));
    private static final Namespace NS = new Namespace("shop", "orders");
    private static final String TOPIC = "tl.shop.orders";

    private static List<SourceRecord> emitted(ValueFormat format) {
        RecordFactory factory = new RecordFactory(NS, TOPIC, "tl.heartbeats", "tl.control", format, "tenant", true, "producer-1");
        RecordState state = new RecordState(RepairProgress.NONE);
        List<SourceRecord> out = new ArrayList<>();
        BsonDocument doc = new BsonDocument("_id", new BsonInt32(7)).append("tenant", new BsonString("007"))
                .append("n", new BsonInt64(1L << 40)).append("x", new BsonDouble(1.5)).append("y", new BsonDouble(2.0))
                .append("nested", BsonDocument.parse("{a: [1, 'two', {b: null}], c: true}"));
        BsonTimestamp t = new BsonTimestamp(1_700_000_000, 3);
        SourceOffset offset = SourceOffset.streamFrom(t);
        factory.append(new Captured.Change(new ChangeEvent(Op.INSERT, NS, new BsonInt32(7), doc, t, 1_700_000_000_000L, null), offset,
                null), state, out);
        factory.append(new Captured.Change(new ChangeEvent(Op.DELETE, NS, new BsonInt32(7), null, t, 1_700_000_000_000L, null), offset,
                doc), state, out); // the delete and its Kafka tombstone
        factory.append(new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.BEGIN, NS, t, 1,
                new IdScope(new org.bson.BsonObjectId(new ObjectId("65a1b2c3d4e5f60718293a4b")), null)), offset), state, out);
        factory.append(new Captured.Heartbeat(offset), state, out);
        return out;
    }

    /** What a sink task gets: key and value through the form's converter, headers as text (header.converter=StringConverter). */
    private static SinkRecord throughKafka(SourceRecord r, ValueFormat format) {
        StringConverter text = new StringConverter();
        text.configure(Map.of("converter.type", "header"));
        return throughKafka(r, format, text);
    }

    private static SinkRecord throughKafka(SourceRecord r, ValueFormat format, org.apache.kafka.connect.storage.HeaderConverter sinkHeaders) {
        Converter converter = switch (format) {
            case BSON -> new BytesAsTheyAre();
            case TEXT -> new StringConverter();
            case JSON, STRUCT -> new JsonConverter();
        };
        converter.configure(Map.of("schemas.enable", Boolean.toString(format == ValueFormat.STRUCT), "converter.type", "value"), false);
        SimpleHeaderConverter headerConverter = new SimpleHeaderConverter();
        headerConverter.configure(Map.of());
        SchemaAndValue key = converter.toConnectData(r.topic(), converter.fromConnectData(r.topic(), r.keySchema(), r.key()));
        SchemaAndValue value = converter.toConnectData(r.topic(), converter.fromConnectData(r.topic(), r.valueSchema(), r.value()));
        ConnectHeaders headers = new ConnectHeaders();
        for (Header h : r.headers()) {
            byte[] bytes = headerConverter.fromConnectHeader(r.topic(), h.key(), h.schema(), h.value());
            SchemaAndValue back = sinkHeaders.toConnectHeader(r.topic(), h.key(), bytes);
            headers.add(h.key(), back);
        }
        return new SinkRecord(r.topic(), 0, key.schema(), key.value(), value.schema(), value.value(), 42L, null, null, headers);
    }

    /** ByteArrayConverter (in connect-runtime, not on this module's path): bytes pass as they are. */
    private static final class BytesAsTheyAre implements Converter {
        @Override
        public void configure(Map<String, ?> configs, boolean isKey) {
        }

        @Override
        public byte[] fromConnectData(String topic, org.apache.kafka.connect.data.Schema schema, Object value) {
            return (byte[]) value;
        }

        @Override
        public SchemaAndValue toConnectData(String topic, byte[] value) {
            return new SchemaAndValue(org.apache.kafka.connect.data.Schema.OPTIONAL_BYTES_SCHEMA, value);
        }
    }

    @ParameterizedTest
    @EnumSource(ValueFormat.class)
    void everyRecordASourceSignsVerifiesAfterTheConvertersOfEachForm(ValueFormat format) {
        List<SourceRecord> records = emitted(format);
        assertThat(records).hasSizeGreaterThanOrEqualTo(5);
        for (SourceRecord r : records) {
            SIGNATURE.sign(r);
            SinkRecord received = throughKafka(r, format);
            assertThat(SIGNATURE.problem(received)).as(format + " " + r.headers().lastWithName(EventHeaders.KIND).value() + " "
                    + r.value()).isEmpty();
        }
    }

    @Test
    void aRecordReplayedOntoAnotherTopicOrChangedDoesNotVerify() {
        SourceRecord r = emitted(ValueFormat.BSON).get(0);
        SIGNATURE.sign(r);
        SinkRecord honest = throughKafka(r, ValueFormat.BSON);
        assertThat(SIGNATURE.problem(honest)).isEmpty();

        SinkRecord otherTopic = honest.newRecord("tl.shop.customers", 0, honest.keySchema(), honest.key(), honest.valueSchema(),
                honest.value(), honest.timestamp(), honest.headers());
        assertThat(SIGNATURE.problem(otherTopic)).get().asString().contains("does not match").contains("another topic");

        byte[] value = ((byte[]) honest.value()).clone();
        value[value.length - 2] ^= 1;
        assertThat(SIGNATURE.problem(honest.newRecord(honest.topic(), 0, null, honest.key(), null, value, null, honest.headers())))
                .get().asString().contains("does not match");

        assertThat(SIGNATURE.problem(withHeader(honest, EventHeaders.NAMESPACE, "shop.customers"))).as("namespace header changed")
                .get().asString().contains("does not match");
        ConnectHeaders added = new ConnectHeaders();
        honest.headers().forEach(added::add);
        added.addString(EventHeaders.TENANT, "other");
        assertThat(SIGNATURE.problem(honest.newRecord(honest.topic(), 0, null, honest.key(), null, honest.value(), null, added)))
                .as("a tl.* header added").get().asString().contains("does not match");
        ConnectHeaders foreign = new ConnectHeaders();
        honest.headers().forEach(foreign::add);
        foreign.addString("__connect.errors.topic", "x");
        assertThat(SIGNATURE.problem(honest.newRecord(honest.topic(), 0, null, honest.key(), null, honest.value(), null, foreign)))
                .as("headers of other names are not covered (Connect's DLQ context)").isEmpty();
    }

    @Test
    void headersTheDefaultHeaderConverterParsedAreRefusedWithWhatToSet() {
        SourceRecord r = emitted(ValueFormat.BSON).get(0);
        SIGNATURE.sign(r);
        SimpleHeaderConverter parsing = new SimpleHeaderConverter();
        parsing.configure(Map.of());
        assertThat(SIGNATURE.problem(throughKafka(r, ValueFormat.BSON, parsing))).get().asString()
                .contains("arrived as a").contains("header.converter=org.apache.kafka.connect.storage.StringConverter");
    }

    @Test
    void unsignedAndForeignKeyRecordsAreRefusedWithTheirReason() {
        SourceRecord r = emitted(ValueFormat.BSON).get(0);
        assertThat(SIGNATURE.problem(throughKafka(r, ValueFormat.BSON))).get().asString().contains("no tl.sig header");

        new RecordSignature(new KeyRing("another deployment's key, 32 characters", null, RecordSignature.KEY_ID_LABEL)).sign(r);
        assertThat(SIGNATURE.problem(throughKafka(r, ValueFormat.BSON))).get().asString().contains("names no key of this sink");

        SinkRecord garbage = withHeader(throughKafka(r, ValueFormat.BSON), RecordSignature.HEADER, "garbage");
        assertThat(SIGNATURE.problem(garbage)).get().asString().contains("names no key");
    }

    @Test
    void recordsSignedWithThePreviousKeyVerifyDuringARotation() {
        String next = "the next record signing key, 32 characters";
        SourceRecord r = emitted(ValueFormat.JSON).get(0);
        SIGNATURE.sign(r);
        RecordSignature rotating = new RecordSignature(new KeyRing(next, SECRET, RecordSignature.KEY_ID_LABEL));
        assertThat(rotating.problem(throughKafka(r, ValueFormat.JSON))).isEmpty();
        assertThat(new RecordSignature(new KeyRing(next, null, RecordSignature.KEY_ID_LABEL)).problem(throughKafka(r, ValueFormat.JSON)))
                .isPresent();
    }

    private static SinkRecord withHeader(SinkRecord r, String name, String value) {
        ConnectHeaders h = new ConnectHeaders();
        r.headers().forEach(x -> {
            if (!x.key().equals(name)) {
                h.add(x);
            }
        });
        h.addString(name, value);
        return r.newRecord(r.topic(), r.kafkaPartition(), r.keySchema(), r.key(), r.valueSchema(), r.value(), r.timestamp(), h);
    }

    @Test
    void settingsLeaveSigningOffUntilAKeyIsSet() {
        var def = new org.apache.kafka.common.config.ConfigDef();
        RecordSigningSettings.defineForSink(def);
        assertThat(RecordSigningSettings.signature(new org.apache.kafka.common.config.AbstractConfig(def, Map.of()))).isEqualTo(Optional.empty());
        assertThat(RecordSigningSettings.signature(new org.apache.kafka.common.config.AbstractConfig(def,
                Map.of(RecordSigningSettings.KEY, SECRET)))).isPresent();
    }
}
