package dev.tideline.sink.check;

import dev.tideline.event.RefusedRecordException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.event.DeepValues;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.junit.jupiter.api.Test;

class RecordShapeTest {
    private static final RecordShape ONE_KB = new RecordShape(1024, "record.max.bytes");

    @Test
    void oversizedValuesAreRefusedInEveryFormBeforeDecoding() {
        assertThat(ONE_KB.problem(new byte[1025])).get().asString().contains("1025 bytes, over record.max.bytes (1024)");
        assertThat(ONE_KB.problem(ByteBuffer.wrap(new byte[2000]))).isPresent();
        assertThat(ONE_KB.problem("x".repeat(1025))).get().asString().contains("1025 characters");
        assertThat(ONE_KB.problem(Map.of("a", "x".repeat(1100)))).get().asString().contains("estimated");
        assertThat(ONE_KB.problem(List.of(Map.of("a", new byte[600]), Map.of("b", new byte[600])))).isPresent();
        Schema schema = SchemaBuilder.struct().field("s", Schema.STRING_SCHEMA).build();
        assertThat(ONE_KB.problem(new Struct(schema).put("s", "y".repeat(1100)))).isPresent();
        assertThatThrownBy(() -> ONE_KB.check(new byte[4096], "record value")).isInstanceOf(RefusedRecordException.class)
                .hasMessageStartingWith("refused: the record value is 4096 bytes");

        assertThat(ONE_KB.problem(new byte[1024])).isEmpty();
        assertThat(ONE_KB.problem(Map.of("a", "small"))).isEmpty();
        assertThat(ONE_KB.problem(null)).isEmpty();
        assertThat(ONE_KB.problem(42L)).isEmpty();
    }

    @Test
    void aDeepStructIsRefusedWithoutDecodingIt() {
        // 2,000 levels: Connect's own Struct.put validates a nested Struct recursively, so a much deeper one
        // cannot even be built (JsonConverter with schemas would overflow in the worker before a sink sees it)
        Schema leaf = SchemaBuilder.struct().name("leaf").field("n", Schema.INT32_SCHEMA).build();
        Struct inner = new Struct(leaf).put("n", 1);
        for (int i = 0; i < 2_000; i++) {
            Schema outer = SchemaBuilder.struct().field("a", inner.schema()).build();
            inner = new Struct(outer).put("a", inner);
        }
        RecordShape shape = new RecordShape(1L << 30, "record.max.bytes");
        assertThat(shape.problem(inner)).get().asString().contains("deeper than 104 levels");
        assertThat(shape.problem(DeepValues.map(10_000))).get().asString().contains("deeper than 104 levels");
        assertThat(shape.problem(DeepValues.map(104))).isEmpty();
        Schema nul = SchemaBuilder.struct().field("a\0b", Schema.INT32_SCHEMA).build();
        assertThat(shape.problem(new Struct(nul).put("a\0b", 1))).get().asString().contains("NUL");
    }
}
