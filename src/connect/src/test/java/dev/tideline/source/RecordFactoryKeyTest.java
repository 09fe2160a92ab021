package dev.tideline.source;

import dev.tideline.record.EnvelopeStruct;
import dev.tideline.record.RecordForm;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.event.ValueFormat;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** Every record the factory makes must pass the converter its format goes with, heartbeats and control records included. */
class RecordFactoryKeyTest {
    private static final Namespace NS = new Namespace("shop", "orders");
    private static final SourceOffset OFFSET = SourceOffset.streamFrom(new BsonTimestamp(1_700_000_000, 1));

    @Test
    void bsonFormKeysHeartbeatsAndControlRecordsByTheNamespaceBytes() {
        // what ByteArrayConverter (connect-runtime, not on this classpath) accepts: a BYTES schema or none, and byte[]
        for (SourceRecord r : records(ValueFormat.BSON)) {
            assertThat(r.keySchema() == null || r.keySchema().type() == Schema.Type.BYTES).isTrue();
            assertThat(r.valueSchema() == null || r.valueSchema().type() == Schema.Type.BYTES).isTrue();
            assertThat(r.key()).isInstanceOf(byte[].class);
            assertThat(new String((byte[]) r.key(), StandardCharsets.UTF_8)).isEqualTo("shop.orders");
            assertThat(r.value()).isInstanceOf(byte[].class);
        }
    }

    @Test
    void jsonFormKeysThemByTheNamespaceString() {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", "false"), true);
        for (SourceRecord r : records(ValueFormat.JSON)) {
            assertThat(new String(converter.fromConnectData(r.topic(), r.keySchema(), r.key()), StandardCharsets.UTF_8))
                    .isEqualTo("\"shop.orders\"");
        }
    }

    private static List<SourceRecord> records(ValueFormat format) {
        RecordFactory factory = new RecordFactory(NS, "t.shop.orders", "t.heartbeats", "t.control", format, "", false, "p1");
        RecordState state = new RecordState(RepairProgress.NONE);
        List<SourceRecord> out = new ArrayList<>();
        factory.append(new Captured.Heartbeat(OFFSET), state, out);
        factory.append(new Captured.Control(ControlType.DROP, "drop of shop.orders", OFFSET), state, out);
        assertThat(out).hasSize(2);
        return out;
    }

    @Test
    void aChangeOfATransactionCarriesItsIdentityInTlTxnAndOtherChangesCarryNone() {
        RecordFactory factory = new RecordFactory(NS, "t.shop.orders", "t.heartbeats", "t.control", ValueFormat.BSON, "", true, "p1");
        ChangeEvent delete = new ChangeEvent(Op.DELETE, NS, new BsonInt32(1), null, new BsonTimestamp(1_700_000_000, 1), 0, null);
        ChangeEvent insert = new ChangeEvent(Op.INSERT, NS, new BsonInt32(2), new BsonDocument("_id", new BsonInt32(2)),
                new BsonTimestamp(1_700_000_000, 2), 0, null);
        List<SourceRecord> out = new ArrayList<>();
        RecordState state = new RecordState(RepairProgress.NONE);
        factory.append(new Captured.Change(delete, OFFSET, null, "0f8fad5b-d9cb-469f-a165-70867728950e:4"), state, out);
        factory.append(new Captured.Change(insert, OFFSET), state, out);
        assertThat(out).hasSize(3); // the delete, its tombstone, the insert
        assertThat(out.get(0).headers().lastWithName(EventHeaders.TRANSACTION).value()).isEqualTo("0f8fad5b-d9cb-469f-a165-70867728950e:4");
        assertThat(out.get(1).headers().lastWithName(EventHeaders.TRANSACTION)).as("the tombstone").isNull();
        assertThat(out.get(2).headers().lastWithName(EventHeaders.TRANSACTION)).isNull();
    }

    @Test
    void aChangeOfATransactionCarriesItsIndexInTheTransactionWhenTheTokenSaysIt() {
        RecordFactory factory = new RecordFactory(NS, "t.shop.orders", "t.heartbeats", "t.control", ValueFormat.BSON, "", false, "p1");
        ChangeEvent insert = new ChangeEvent(Op.INSERT, NS, new BsonInt32(2), new BsonDocument("_id", new BsonInt32(2)),
                new BsonTimestamp(1_700_000_000, 2), 0, null);
        // MongoDB's layout: cluster time, token version 2, an event (128), txnOpIndex 3, fromInvalidate false, ...
        SourceOffset third = SourceOffset.streamAfter(new BsonDocument("_data",
                new BsonString("82" + "6553F10000000002" + "2B04" + "2C0100" + "2B06" + "6E" + "5A1004" + "0123456789ABCDEF0123456789ABCDEF" + "0004")));
        List<SourceRecord> out = new ArrayList<>();
        RecordState state = new RecordState(RepairProgress.NONE);
        factory.append(new Captured.Change(insert, third, null, "0f8fad5b-d9cb-469f-a165-70867728950e:4"), state, out);
        factory.append(new Captured.Change(insert, third), state, out);
        assertThat(out.get(0).headers().lastWithName(EventHeaders.TRANSACTION_OP).value()).isEqualTo("3");
        assertThat(out.get(1).headers().lastWithName(EventHeaders.TRANSACTION_OP)).as("outside a transaction").isNull();
    }

    @Test
    void aMarkerGoesToEveryPartitionOfTheChangeTopicWithItsHeaders() {
        RecordFactory factory = new RecordFactory(NS, "t.shop.orders", "t.heartbeats", "t.control", ValueFormat.BSON, "", false, "p1");
        RecordState state = new RecordState(RepairProgress.NONE);
        ResnapshotMarker marker = new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, NS, new BsonTimestamp(1_700_000_000, 1), 3);
        List<SourceRecord> out = new ArrayList<>();
        factory.append(new Captured.Marker(marker, OFFSET), state, out);
        assertThat(out).extracting(SourceRecord::kafkaPartition).containsExactly(0, 1, 2);
        for (SourceRecord r : out) {
            assertThat(r.topic()).isEqualTo("t.shop.orders");
            assertThat(r.sourceOffset()).isEqualTo(OFFSET.toMap());
            assertThat(r.headers().lastWithName(EventHeaders.KIND).value()).isEqualTo(EventHeaders.KIND_CONTROL);
            assertThat(ResnapshotMarker.fromHeaders(name -> r.headers().lastWithName(name) == null ? null
                    : r.headers().lastWithName(name).value())).contains(marker);
        }
    }

    @Test
    void aStructMarkerCarriesTheChangeTopicsKeyAndValueSchemas() {
        // a schema registry keeps one subject per topic: a second, unrelated schema there is refused
        RecordFactory factory = new RecordFactory(NS, "t.shop.orders", "t.heartbeats", "t.control", ValueFormat.STRUCT, "", false, "p1");
        RecordState state = new RecordState(RepairProgress.NONE);
        ResnapshotMarker marker = new ResnapshotMarker(ResnapshotMarker.Stage.BEGIN, NS, new BsonTimestamp(1_700_000_000, 1), 2);
        List<SourceRecord> out = new ArrayList<>();
        factory.append(new Captured.Marker(marker, OFFSET), state, out);
        assertThat(out).hasSize(2);
        for (SourceRecord r : out) {
            assertThat(r.keySchema()).isEqualTo(dev.tideline.record.EnvelopeStruct.KEY_SCHEMA);
            assertThat(r.valueSchema()).isEqualTo(dev.tideline.record.EnvelopeStruct.VALUE_SCHEMA);
            org.apache.kafka.connect.data.Struct value = (org.apache.kafka.connect.data.Struct) r.value();
            value.validate();
            assertThat(value.getString("op")).isEqualTo("resnapshot.begin");
            assertThat(value.getString("document")).contains("\"epoch\"");
            assertThat(ResnapshotMarker.fromHeaders(name -> r.headers().lastWithName(name) == null ? null
                    : r.headers().lastWithName(name).value())).contains(marker);
        }
    }
}
