package dev.tideline.event;

import dev.tideline.record.EnvelopeStruct;
import dev.tideline.record.RecordForm;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.StringConverter;
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

/** The shard key fields of documentKey travel with the change, losslessly in every form; records without them read as before. */
class ShardKeyEnvelopeTest {
    private static final String TOPIC = "tideline.shop.orders";
    private static final BsonDocument SHARD_KEY = new BsonDocument("region", new BsonString("eu"))
            .append("customer.id", new BsonInt64(1L << 40)).append("bucket", new BsonDecimal128(Decimal128.parse("1.10")));
    private static final ObjectId ID = new ObjectId("5099803df3f4948bd2f98391");

    private static ChangeEvent event(Op op) {
        BsonDocument doc = op == Op.DELETE ? null : new BsonDocument("_id", new BsonObjectId(ID)).append("region", new BsonString("eu"))
                .append("customer", new BsonDocument("id", new BsonInt64(1L << 40))).append("bucket",
                        new BsonDecimal128(Decimal128.parse("1.10"))).append("n", new BsonInt32(1));
        BsonDocument documentKey = new BsonDocument("region", new BsonString("eu")).append("customer.id", new BsonInt64(1L << 40))
                .append("_id", new BsonObjectId(ID)).append("bucket", new BsonDecimal128(Decimal128.parse("1.10")));
        return new ChangeEvent(op, new Namespace("shop", "orders"), new BsonObjectId(ID), doc, new BsonTimestamp(1_700_000_000, 3),
                1_700_000_000_000L, null).withDocumentKey(documentKey);
    }

    private static Converter converter(Converter c, boolean schemas) {
        c.configure(Map.of("schemas.enable", Boolean.toString(schemas)), false);
        return c;
    }

    @Test
    void documentKeyLessIdIsTheShardKeyInOrder() {
        assertThat(event(Op.INSERT).shardKey()).isEqualTo(SHARD_KEY);
        assertThat(event(Op.INSERT).shardKey().keySet()).containsExactly("region", "customer.id", "bucket");
        assertThat(ChangeEvent.shardKeyOf(new BsonDocument("_id", new BsonInt32(1)))).isNull();
        assertThat(ChangeEvent.shardKeyOf(null)).isNull();
        assertThat(ChangeEvent.shardKeyOf(new BsonDocument("x", new BsonInt32(1)))).as("no _id: not a document key").isNull();
        assertThat(event(Op.INSERT).withOrigin("eu-west").shardKey()).isEqualTo(SHARD_KEY);
    }

    @Test
    void everyFormCarriesItExactly() {
        for (Op op : new Op[] {Op.INSERT, Op.DELETE}) {
            ChangeEvent e = event(op);
            // bson
            ChangeEvent bson = EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(RecordForm.of(ValueFormat.BSON).value(e)));
            assertThat(bson).isEqualTo(e);
            // json, through JsonConverter without schemas (types survive: int64, decimal)
            Converter json = converter(new JsonConverter(), false);
            Object consumed = json.toConnectData(TOPIC, json.fromConnectData(TOPIC, null, RecordForm.of(ValueFormat.JSON).value(e))).value();
            ChangeEvent fromJson = EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(consumed));
            assertThat(fromJson.shardKey()).isEqualTo(SHARD_KEY);
            assertThat(fromJson.shardKey().get("customer.id").isInt64()).isTrue();
            // text
            Converter text = converter(new StringConverter(), false);
            byte[] wire = text.fromConnectData(TOPIC, Schema.OPTIONAL_STRING_SCHEMA, RecordForm.of(ValueFormat.TEXT).value(e));
            assertThat(new String(wire, StandardCharsets.UTF_8)).contains("\"shardKey\"");
            assertThat(EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(text.toConnectData(TOPIC, wire).value()))).isEqualTo(e);
            // struct, through JsonConverter with schemas
            Converter struct = converter(new JsonConverter(), true);
            SchemaAndValue sv = struct.toConnectData(TOPIC, struct.fromConnectData(TOPIC, EnvelopeStruct.VALUE_SCHEMA,
                    RecordForm.of(ValueFormat.STRUCT).value(e)));
            assertThat(EnvelopeCodec.fromBson(EnvelopeStruct.toEnvelope((Struct) sv.value()))).isEqualTo(e);
        }
    }

    @Test
    void recordsWithoutItReadAsBeforeInEveryForm() {
        ChangeEvent plain = new ChangeEvent(Op.INSERT, new Namespace("shop", "orders"), new BsonInt32(1),
                new BsonDocument("_id", new BsonInt32(1)), new BsonTimestamp(5, 1), 5_000L, null);
        assertThat(EnvelopeCodec.toBson(plain).containsKey("shardKey")).isFalse();
        assertThat(EnvelopeCodec.fromBson(EnvelopeCodec.toBson(plain)).shardKey()).isNull();

        // a struct written with the schema before the field existed (what older sources produced)
        SchemaBuilder old = SchemaBuilder.struct().name(EnvelopeStruct.VALUE_SCHEMA_NAME).version(1).optional();
        for (org.apache.kafka.connect.data.Field f : EnvelopeStruct.VALUE_SCHEMA.fields()) {
            if (!f.name().equals("shardKey")) {
                old.field(f.name(), f.schema());
            }
        }
        Schema oldSchema = old.build();
        Struct current = EnvelopeStruct.toStruct(plain);
        Struct written = new Struct(oldSchema);
        for (org.apache.kafka.connect.data.Field f : oldSchema.fields()) {
            written.put(f.name(), current.get(f.name()));
        }
        assertThat(EnvelopeCodec.fromBson(EnvelopeStruct.toEnvelope(written))).isEqualTo(plain);
    }

    @Test
    void aShardKeyThatIsNotADocumentIsMalformed() {
        BsonDocument env = EnvelopeCodec.toBson(event(Op.INSERT));
        env.put("shardKey", new BsonString("region"));
        assertThatThrownBy(() -> EnvelopeCodec.fromBson(env)).isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("shardKey");
    }
}
