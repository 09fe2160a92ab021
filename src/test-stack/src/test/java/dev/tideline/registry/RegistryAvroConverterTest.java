package dev.tideline.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.record.EnvelopeStruct;
import dev.tideline.sink.config.TombstoneAction;
import dev.tideline.sink.decode.Decoded;
import dev.tideline.sink.check.RecordShape;
import dev.tideline.sink.config.RecordSafetySettings;
import dev.tideline.sink.decode.RecordDecoder;
import dev.tideline.sink.decode.SinkChange;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.utils.converter.AvroConverter;
import java.nio.ByteBuffer;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * The source's {@code output.format=struct} through a schema-registry-backed Avro converter (Apicurio's AvroConverter,
 * as a worker would run it with {@code value.converter=io.apicurio.registry.utils.converter.AvroConverter}) and into
 * the Tideline sink's record decoder: the key and the value are registered as Avro schemas, the bytes carry the
 * registry's id, and what the sink reads back is the change that was sent, every BSON type kept. The registry is
 * {@link InMemoryRegistry}: none can run here (docs/record-formats.md#schema-registry).
 */
class RegistryAvroConverterTest {
    private static final Namespace NS = new Namespace("shop", "orders");
    private static final String TOPIC = "tideline.shop.orders";

    @Test
    void aStructChangeThroughTheRegistryBackedAvroConverterIsTheChangeTheSinkApplies() {
        InMemoryRegistry registry = new InMemoryRegistry();
        AvroConverter<Object> keys = converter(registry, true);
        AvroConverter<Object> values = converter(registry, false);
        BsonDocument document = new BsonDocument("_id", new BsonObjectId(new ObjectId("65a1b2c3d4e5f60718293a4b")))
                .append("name", new BsonString("Ada")).append("qty", new BsonInt32(3)).append("big", new BsonInt64(1L << 40))
                .append("price", new BsonDecimal128(Decimal128.parse("19.99"))).append("at", new BsonDateTime(1_700_000_000_000L))
                .append("tags", new BsonArray(List.of(new BsonString("a"), new BsonInt32(1))))
                .append("raw", new BsonBinary(new byte[] {1, 2, 3})).append("nested", new BsonDocument("x", new BsonInt32(1)));
        ChangeEvent sent = new ChangeEvent(Op.REPLACE, NS, document.get("_id"), document, new BsonTimestamp(1_700_000_000, 7),
                1_700_000_000_123L, null);
        Struct key = EnvelopeStruct.key(sent.id());
        Struct value = EnvelopeStruct.toStruct(sent); // what the source sends with output.format=struct

        byte[] keyBytes = keys.fromConnectData(TOPIC, key.schema(), key);
        byte[] valueBytes = values.fromConnectData(TOPIC, value.schema(), value);
        // Apicurio's framing: magic byte 0, then the 8-byte global id of the schema in the registry
        assertThat(valueBytes[0]).isZero();
        long valueSchemaId = ByteBuffer.wrap(valueBytes, 1, 8).getLong();
        assertThat(registry.artifacts()).hasSize(2).containsKey(valueSchemaId);
        assertThat(registry.artifacts().get(valueSchemaId).id()).isEqualTo(TOPIC + "-value");
        assertThat(registry.artifacts().get(valueSchemaId).content()).contains("\"type\":\"record\"").contains("ChangeEnvelope");
        // the same schema again is the same registry entry
        assertThat(values.fromConnectData(TOPIC, value.schema(), value)).isEqualTo(valueBytes);
        assertThat(registry.artifacts()).hasSize(2);

        // a sink worker: the converter reads the schema by its id, the Tideline sink decodes the change
        SchemaAndValue k = keys.toConnectData(TOPIC, keyBytes);
        SchemaAndValue v = values.toConnectData(TOPIC, valueBytes);
        System.out.println("value schema after the registry: " + v.schema().name() + " " + v.schema().fields());
        Decoded decoded = new RecordDecoder(TombstoneAction.DELETE, Optional.empty(), false,
                new RecordShape(RecordSafetySettings.DEFAULT_RECORD_MAX_BYTES, RecordSafetySettings.RECORD_MAX_BYTES))
                .decode(new SinkRecord(TOPIC, 0, k.schema(), k.value(), v.schema(), v.value(), 42));
        assertThat(decoded).isInstanceOf(SinkChange.class);
        SinkChange change = (SinkChange) decoded;
        assertThat(change.kind()).isEqualTo(SinkChange.Kind.WRITE);
        assertThat(change.sourceNs()).isEqualTo(NS);
        assertThat(change.id()).isEqualTo(document.get("_id"));
        assertThat(change.document()).isEqualTo(document);
        assertThat(((Struct) v.value()).get(EnvelopeCodec.F_WALL_TIME)).isEqualTo(new Date(1_700_000_000_123L));
    }

    static AvroConverter<Object> converter(InMemoryRegistry registry, boolean isKey) {
        AvroConverter<Object> c = new AvroConverter<>();
        c.setSerializer(new AvroKafkaSerializer<>(registry.client()));
        c.setDeserializer(new AvroKafkaDeserializer<>(registry.client()));
        c.configure(Map.of("apicurio.registry.url", "http://in-memory.invalid", "apicurio.registry.auto-register", "true"), isKey);
        return c;
    }
}
