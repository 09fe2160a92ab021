package dev.tideline.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** Markers are read back from their headers, also after the worker's default header converter reshaped them. */
class ResnapshotMarkerTest {
    private static final Namespace NS = new Namespace("shop", "orders");
    // after 2038: seconds above 2^31, so the timestamp's long value is negative
    private static final BsonTimestamp LATE = new BsonTimestamp((int) 3_000_000_000L, 7);

    private static Map<String, Object> headersOf(ResnapshotMarker m) {
        Map<String, Object> h = new HashMap<>(m.headers());
        h.put(EventHeaders.NAMESPACE, m.ns().fullName());
        h.put(EventHeaders.KIND, EventHeaders.KIND_CONTROL);
        return h;
    }

    @Test
    void roundTripsThroughItsHeaders() {
        for (ResnapshotMarker.Stage stage : ResnapshotMarker.Stage.values()) {
            ResnapshotMarker m = new ResnapshotMarker(stage, NS, new BsonTimestamp(1_700_000_000, 3), 6);
            assertThat(ResnapshotMarker.fromHeaders(headersOf(m)::get)).contains(m);
        }
    }

    @Test
    void survivesTheSimpleHeaderConverterWhichParsesNumbers() {
        ResnapshotMarker m = new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, NS, LATE, 3);
        SimpleHeaderConverter converter = new SimpleHeaderConverter();
        converter.configure(Map.of());
        Map<String, Object> parsed = new HashMap<>();
        headersOf(m).forEach((k, v) -> {
            byte[] wire = converter.fromConnectHeader("t", k, Schema.STRING_SCHEMA, v);
            parsed.put(k, converter.toConnectHeader("t", k, wire).value());
        });
        assertThat(parsed.get(EventHeaders.EPOCH)).isInstanceOf(Number.class); // what the sink really gets
        assertThat(ResnapshotMarker.fromHeaders(parsed::get)).contains(m);
    }

    @Test
    void acceptsRawBytesAsAByteArrayHeaderConverterLeavesThem() {
        ResnapshotMarker m = new ResnapshotMarker(ResnapshotMarker.Stage.BEGIN, NS, LATE, 1);
        Map<String, Object> raw = new HashMap<>();
        headersOf(m).forEach((k, v) -> raw.put(k, v.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(ResnapshotMarker.fromHeaders(raw::get)).contains(m);
    }

    @Test
    void otherRecordsAreNotMarkers() {
        assertThat(ResnapshotMarker.fromHeaders(Map.<String, Object>of(EventHeaders.KIND, "control")::get)).isEqualTo(Optional.empty());
    }

    @Test
    void aBrokenMarkerNamesTheHeader() {
        Map<String, Object> h = headersOf(new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, NS, LATE, 2));
        h.put(EventHeaders.MARKER, "resnapshot.halfway");
        assertThatThrownBy(() -> ResnapshotMarker.fromHeaders(h::get)).isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining(EventHeaders.MARKER).hasMessageContaining("resnapshot.halfway");
        h.put(EventHeaders.MARKER, "resnapshot.complete");
        h.put(EventHeaders.EPOCH, "soon");
        assertThatThrownBy(() -> ResnapshotMarker.fromHeaders(h::get)).isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining(EventHeaders.EPOCH).hasMessageContaining("soon");
        h.remove(EventHeaders.EPOCH);
        assertThatThrownBy(() -> ResnapshotMarker.fromHeaders(h::get)).isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining(EventHeaders.EPOCH);
        h.put(EventHeaders.EPOCH, "12");
        h.put(EventHeaders.PARTITIONS, "0");
        assertThatThrownBy(() -> ResnapshotMarker.fromHeaders(h::get)).isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining(EventHeaders.PARTITIONS);
    }

    @Test
    void theValueSaysWhatHappenedForPeople() {
        var v = new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, NS, LATE, 2).value(1L);
        assertThat(v.getString("type").getValue()).isEqualTo("resnapshot.complete");
        assertThat(v.getTimestamp("epoch")).isEqualTo(LATE);
        assertThat(v.getString("detail").getValue()).contains("Timestamp(3000000000, 7)");
    }
}
