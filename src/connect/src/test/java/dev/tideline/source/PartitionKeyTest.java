package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.source.capture.SourcePartition;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

/**
 * Connect stores a source offset under the JSON bytes of {@code [connector, partition]} (its internal
 * key converter: JsonConverter without schemas) and reads partitions back into maps (GET, PATCH,
 * DELETE of /offsets). A partition that does not survive that round trip byte for byte is stored
 * twice: an operator's edit goes under the round-tripped bytes, the task keeps reading its own, and
 * the edit silently has no effect (OpsOffsetsIT found this).
 */
class PartitionKeyTest {

    @Test
    void partitionKeySurvivesConnectsJsonRoundTrip() {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", "false"), true);
        for (Namespace ns : List.of(new Namespace("shop", "orders"), new Namespace("a", "b"), new Namespace("ops_offsets", "events"))) {
            byte[] written = converter.fromConnectData("", null, List.of("source-connector", SourcePartition.of(ns)));
            SchemaAndValue read = converter.toConnectData("", written);
            byte[] rewritten = converter.fromConnectData("", null, read.value());
            assertThat(new String(rewritten)).as(ns.fullName()).isEqualTo(new String(written));
        }
    }
}
