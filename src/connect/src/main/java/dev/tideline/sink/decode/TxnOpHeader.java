package dev.tideline.sink.decode;

import dev.tideline.event.EventHeaders;
import dev.tideline.event.RefusedRecordException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Reads the {@value EventHeaders#TRANSACTION_OP} header: a change's index within its transaction, the stale-write
 * guard's tie-breaker between changes of one cluster time. Records are untrusted: anything but a decimal integer
 * from 0 to 2147483647 (a string, or bytes holding one) is refused with the reason. Pure.
 */
public final class TxnOpHeader {
    private static final int MAX_DIGITS = 10;

    private TxnOpHeader() {
    }

    /**
     * @return the index, or null when the record carries no such header
     * @throws RefusedRecordException when the header is there but not a valid index
     */
    public static Long of(SinkRecord record) {
        Header h = record.headers().lastWithName(EventHeaders.TRANSACTION_OP);
        if (h == null || h.value() == null) {
            return null;
        }
        Object v = h.value();
        String text = v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v instanceof String s ? s : null;
        if (text == null || text.isEmpty() || text.length() > MAX_DIGITS || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw refused(text == null ? "a " + v.getClass().getSimpleName() : "'" + shown(text) + "'");
        }
        long index = Long.parseLong(text);
        if (index > Integer.MAX_VALUE) {
            throw refused("'" + text + "'");
        }
        return index;
    }

    private static RefusedRecordException refused(String what) {
        return new RefusedRecordException("refused: header " + EventHeaders.TRANSACTION_OP + " (the change's index in its "
                + "transaction, which orders changes of one cluster time) is " + what + ", not a decimal integer from 0 to "
                + Integer.MAX_VALUE + ": a record from a producer that sets the header wrongly; fix the producer, or drop the "
                + "header with a HeaderFrom/DropHeaders transform to apply such changes in arrival order");
    }

    private static String shown(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "…" : text;
    }
}
