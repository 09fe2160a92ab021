package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** Heartbeat and control records must pass the key converter that goes with their format. */
class RecordFactoryKeyTest {
    private static final Namespace NS = new Namespace("shop", "orders");

    private static List<SourceRecord> heartbeatAndControl(ValueFormat format) {
        RecordFactory f = new RecordFactory(NS, "t.shop.orders", "t.heartbeats", "t.control", format, null, false, "p1");
        List<SourceRecord> out = new ArrayList<>();
        SourceOffset at = SourceOffset.streamFrom(new BsonTimestamp(100, 1));
        f.append(new Captured.Heartbeat(at), out);
        f.append(new Captured.Control("drop", "drop of shop.orders", at), out);
        return out;
    }

    @Test
    void bsonFormKeysAreBytesThatByteArrayConverterTakes() {
        for (SourceRecord r : heartbeatAndControl(ValueFormat.BSON)) {
            // what ByteArrayConverter accepts (connect-runtime is not on the test classpath): bytes, schema BYTES or none
            assertThat(r.keySchema() == null || r.keySchema().type() == Schema.Type.BYTES).isTrue();
            assertThat(r.key()).isInstanceOf(byte[].class);
            assertThat(new String((byte[]) r.key(), StandardCharsets.UTF_8)).isEqualTo("shop.orders");
        }
    }

    @Test
    void jsonFormKeysAreTheNamespace() {
        assertThat(heartbeatAndControl(ValueFormat.JSON)).extracting(SourceRecord::key).containsOnly("shop.orders");
    }
}
