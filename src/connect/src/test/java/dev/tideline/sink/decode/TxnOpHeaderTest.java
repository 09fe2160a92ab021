package dev.tideline.sink.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.event.EventHeaders;
import dev.tideline.event.RefusedRecordException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** The transaction index header is untrusted input: a decimal int from 0 to 2^31-1, or the record is refused. */
class TxnOpHeaderTest {
    private static SinkRecord with(Object value) {
        SinkRecord r = new SinkRecord("t", 0, null, null, null, null, 0);
        if (value != null) {
            r.headers().add(EventHeaders.TRANSACTION_OP, value, null);
        }
        return r;
    }

    @Test
    void readsDecimalIndexes() {
        assertThat(TxnOpHeader.of(with(null))).isNull();
        assertThat(TxnOpHeader.of(with("0"))).isZero();
        assertThat(TxnOpHeader.of(with("42"))).isEqualTo(42L);
        assertThat(TxnOpHeader.of(with("2147483647"))).isEqualTo(2147483647L);
        assertThat(TxnOpHeader.of(with("7".getBytes(StandardCharsets.UTF_8)))).isEqualTo(7L);
    }

    @Test
    void refusesAnythingElseNamingTheHeader() {
        for (Object bad : new Object[] {"-1", "+1", "", " 1", "1.0", "2147483648", "99999999999999999999", "x", 5,
                new byte[] {(byte) 0xFF}}) {
            assertThatThrownBy(() -> TxnOpHeader.of(with(bad))).as(String.valueOf(bad)).isInstanceOf(RefusedRecordException.class)
                    .hasMessageContaining(EventHeaders.TRANSACTION_OP);
        }
    }

    @Test
    void aSchemaTypedIntegerIsNotAnIndexEither() {
        SinkRecord r = new SinkRecord("t", 0, null, null, null, null, 0);
        r.headers().add(EventHeaders.TRANSACTION_OP, 3, Schema.INT32_SCHEMA);
        assertThatThrownBy(() -> TxnOpHeader.of(r)).hasMessageContaining("Integer");
    }
}
