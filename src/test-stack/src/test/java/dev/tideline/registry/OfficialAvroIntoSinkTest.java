package dev.tideline.registry;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.kafka.connect.source.MongoSourceConfig;
import com.mongodb.kafka.connect.source.producer.SchemaAndValueProducer;
import com.mongodb.kafka.connect.source.producer.SchemaAndValueProducers;
import dev.tideline.sink.config.TombstoneAction;
import dev.tideline.sink.decode.Decoded;
import dev.tideline.sink.check.RecordShape;
import dev.tideline.sink.config.RecordSafetySettings;
import dev.tideline.sink.decode.RecordDecoder;
import dev.tideline.sink.decode.SinkChange;
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.utils.converter.AvroConverter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * MongoDB's official source connector's schema'd output ({@code output.format.value=schema},
 * {@code output.schema.infer.value=true}: the value's schema inferred from each change event, as its source task makes
 * it, by its own {@code SchemaAndValueProducers}) through Apicurio's AvroConverter and a registry (in memory: none can
 * run here, docs/record-formats.md#schema-registry) into the Tideline sink's decoder. The registry hop loses nothing: the
 * sink decodes the same change from the Avro bytes as from the official connector's Struct itself, and every BSON type
 * the official schema output carries as its own kind arrives as it was written. What the official side turns into text
 * (its schema has no ObjectId, timestamp, regex, JavaScript, min/max key; a binary loses its subtype) is listed here
 * exactly, and in docs/record-formats.md.
 */
class OfficialAvroIntoSinkTest {
    private static final String TOPIC = "official.shop.orders";

    @Test
    void theOfficialConnectorsSchemaOutputThroughTheRegistryIsTheChangeTheSinkApplies() {
        BsonDocument kept = new BsonDocument("_id", new BsonInt64(7))
                .append("name", new BsonString("Ada")).append("qty", new BsonInt32(3)).append("big", new BsonInt64(1L << 40))
                .append("ratio", new BsonDouble(0.25)).append("ok", BsonBoolean.TRUE)
                .append("at", new BsonDateTime(1_700_000_000_000L))
                .append("price", new BsonDecimal128(Decimal128.parse("19.99")))
                .append("raw", new BsonBinary(new byte[] {1, 2, 3}))
                .append("tags", new BsonArray(List.of(new BsonString("a"), new BsonString("b"))))
                .append("nested", new BsonDocument("x", new BsonInt32(1)).append("deeper", new BsonDocument("y", new BsonString("z"))));
        BsonDocument turnedToText = new BsonDocument()
                .append("oid", new BsonObjectId(new ObjectId("65a1b2c3d4e5f60718293a4b")))
                .append("ts", new BsonTimestamp(1_700_000_000, 7))
                .append("re", new BsonRegularExpression("^a", "i"))
                .append("js", new BsonJavaScript("function() {}"))
                .append("min", new BsonMinKey()).append("max", new BsonMaxKey())
                .append("uuid", new BsonBinary(BsonBinarySubType.UUID_STANDARD, new byte[16]))
                .append("mixed", new BsonArray(List.of(new BsonString("a"), new BsonInt32(1))))
                .append("nothing", BsonNull.VALUE);
        BsonDocument written = kept.clone();
        turnedToText.forEach(written::append);
        BsonDocument event = event(written);

        SchemaAndValueProducer keyProducer = SchemaAndValueProducers.createKeySchemaAndValueProvider(config());
        SchemaAndValueProducer valueProducer = producer();
        SchemaAndValue key = keyProducer.get(event);
        SchemaAndValue value = valueProducer.get(event);
        System.out.println("official value schema: " + value.schema().field("fullDocument").schema().fields());

        InMemoryRegistry registry = new InMemoryRegistry();
        AvroConverter<Object> keys = RegistryAvroConverterTest.converter(registry, true);
        AvroConverter<Object> values = RegistryAvroConverterTest.converter(registry, false);
        SchemaAndValue keyBack = keys.toConnectData(TOPIC, keys.fromConnectData(TOPIC, key.schema(), key.value()));
        SchemaAndValue valueBack = values.toConnectData(TOPIC, values.fromConnectData(TOPIC, value.schema(), value.value()));

        RecordDecoder decoder = sinkDecoder();
        SinkChange direct = (SinkChange) decoder.decode(new SinkRecord(TOPIC, 0, key.schema(), key.value(), value.schema(), value.value(), 1));
        Decoded decoded = decoder.decode(new SinkRecord(TOPIC, 0, keyBack.schema(), keyBack.value(), valueBack.schema(), valueBack.value(), 1));
        assertThat(decoded).isInstanceOf(SinkChange.class);
        SinkChange change = (SinkChange) decoded;
        System.out.println("the sink decodes: " + change.document().toJson());
        assertThat(change.kind()).isEqualTo(SinkChange.Kind.WRITE);
        assertThat(change.id()).isEqualTo(new BsonInt64(7));
        // the registry and Avro hop adds nothing and loses nothing
        assertThat(change.document()).as("after the registry, as from the official connector's own Struct").isEqualTo(direct.document());
        for (String field : kept.keySet()) {
            assertThat(change.document().get(field)).as(field).isEqualTo(kept.get(field));
        }
        // what the official schema output itself changes (the sink reads the same from its own Struct, above)
        BsonDocument got = change.document();
        assertThat(got.get("oid")).isEqualTo(new BsonString("{\"$oid\": \"65a1b2c3d4e5f60718293a4b\"}"));
        assertThat(got.get("ts")).as("a timestamp becomes a date: its increment is lost").isEqualTo(new BsonDateTime(1_700_000_000_000L));
        assertThat(got.get("re")).isEqualTo(new BsonString("{\"$regex\": \"^a\", \"$options\": \"i\"}"));
        assertThat(got.get("js")).isEqualTo(new BsonString("{\"$code\": \"function() {}\"}"));
        assertThat(got.get("min")).isEqualTo(new BsonString("{\"$minKey\": 1}"));
        assertThat(got.get("max")).isEqualTo(new BsonString("{\"$maxKey\": 1}"));
        assertThat(got.get("uuid")).as("the binary subtype is lost").isEqualTo(new BsonBinary(new byte[16]));
        assertThat(got.get("mixed")).as("an array of mixed types becomes strings")
                .isEqualTo(new BsonArray(List.of(new BsonString("a"), new BsonString("1"))));
        assertThat(got.get("nothing")).isEqualTo(BsonNull.VALUE);
        assertThat(new ArrayList<>(got.keySet())).as("the inferred schema sorts the fields by name").isSorted();
        assertThat(new ArrayList<>(got.getDocument("nested").keySet())).containsExactly("deeper", "x");
        System.out.println("the official schema output, then the registry, then the sink: " + got.toJson());
    }

    /** The MongoDB default _id, an ObjectId, is one of the types the official schema output turns into text. */
    @Test
    void anObjectIdIdArrivesAsText() {
        BsonObjectId id = new BsonObjectId(new ObjectId("65a1b2c3d4e5f60718293a4b"));
        BsonDocument event = event(new BsonDocument("_id", id).append("n", new BsonInt32(1)));
        SchemaAndValue value = producer().get(event);
        AvroConverter<Object> values = RegistryAvroConverterTest.converter(new InMemoryRegistry(), false);
        SchemaAndValue back = values.toConnectData(TOPIC, values.fromConnectData(TOPIC, value.schema(), value.value()));
        SinkChange change = (SinkChange) sinkDecoder()
                .decode(new SinkRecord(TOPIC, 0, null, null, back.schema(), back.value(), 1));
        assertThat(change.id()).isEqualTo(new BsonString("{\"$oid\": \"65a1b2c3d4e5f60718293a4b\"}"));
        assertThat(change.document().get("_id")).isEqualTo(change.id());
    }

    private static SchemaAndValueProducer producer() {
        return SchemaAndValueProducers.createValueSchemaAndValueProvider(config());
    }

    private static MongoSourceConfig config() {
        return new MongoSourceConfig(Map.of("connection.uri", "mongodb://localhost",
                "output.format.key", "schema", "output.format.value", "schema", "output.schema.infer.value", "true"));
    }

    /** An insert event as the server's change stream gives it to the official connector. */
    private static BsonDocument event(BsonDocument document) {
        return new BsonDocument("_id", new BsonDocument("_data", new BsonString("8265A1B2C3000000012B")))
                .append("operationType", new BsonString("insert"))
                .append("clusterTime", new BsonTimestamp(1_700_000_000, 1))
                .append("ns", new BsonDocument("db", new BsonString("shop")).append("coll", new BsonString("orders")))
                .append("documentKey", new BsonDocument("_id", document.get("_id")))
                .append("fullDocument", document);
    }

    /** The sink's decoder as a sink with the default settings builds it. */
    private static RecordDecoder sinkDecoder() {
        return new RecordDecoder(TombstoneAction.DELETE, Optional.empty(), false,
                new RecordShape(RecordSafetySettings.DEFAULT_RECORD_MAX_BYTES, RecordSafetySettings.RECORD_MAX_BYTES));
    }
}
