package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/**
 * Every record of the bson form must pass ByteArrayConverter, which accepts only byte[] (or null)
 * with a bytes schema: a heartbeat keyed by a String failed the task at its first heartbeat, the
 * one a backfill commits before copying.
 */
class RecordFactoryKeyTest {
    private static final Namespace NS = new Namespace("shop", "orders");

    @Test
    void bsonFormKeysAndValuesAreBytesForEveryKindOfRecord() {
        List<SourceRecord> out = records(ValueFormat.BSON);
        assertThat(out).hasSize(4);
        for (SourceRecord r : out) {
            assertThat(r.key()).as(r.topic()).isInstanceOf(byte[].class);
            assertThat(r.keySchema().type()).isEqualTo(Schema.Type.BYTES);
            assertThat(r.value()).as(r.topic()).isInstanceOf(byte[].class);
            assertThat(r.valueSchema().type()).isEqualTo(Schema.Type.BYTES);
        }
        assertThat(new String((byte[]) out.get(1).key(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("shop.orders");
    }

    @Test
    void jsonFormKeysNoticesByNamespaceString() {
        List<SourceRecord> out = records(ValueFormat.JSON);
        assertThat(out.get(1).key()).isEqualTo("shop.orders");
        assertThat(out.get(2).key()).isEqualTo("shop.orders");
        assertThat(out.get(1).keySchema()).isNull();
    }

    private static List<SourceRecord> records(ValueFormat format) {
        RecordFactory f = new RecordFactory(NS, "t.shop.orders", "t.heartbeats", "t.control", format, null, true, "p1");
        SourceOffset at = SourceOffset.streamFrom(new BsonTimestamp(1, 1));
        List<SourceRecord> out = new ArrayList<>();
        BsonDocument doc = new BsonDocument("_id", new BsonInt32(1));
        f.append(new Captured.Change(new ChangeEvent(Op.INSERT, NS, new BsonInt32(1), doc, new BsonTimestamp(1, 1), 1000L, null), at), out);
        f.append(new Captured.Heartbeat(at), out);
        f.append(new Captured.Control("history_lost", "a test", at), out);
        f.append(new Captured.Change(new ChangeEvent(Op.DELETE, NS, new BsonInt32(1), null, new BsonTimestamp(1, 2), 1000L, null), at), out);
        return out.subList(0, 4);
    }
}
