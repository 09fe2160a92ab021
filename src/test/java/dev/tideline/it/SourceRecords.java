package dev.tideline.it;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** Decoding helpers for records our source wrote (json text from JsonConverter, or bson bytes). */
final class SourceRecords {
    private SourceRecords() {
    }

    static boolean isChange(ConsumerRecord<byte[], byte[]> r) {
        Header kind = r.headers().lastHeader(EventHeaders.KIND);
        return r.value() != null && kind != null && EventHeaders.KIND_CHANGE.equals(new String(kind.value(), StandardCharsets.UTF_8));
    }

    static ChangeEvent decode(ConsumerRecord<byte[], byte[]> r, boolean bson) {
        Object value = bson ? r.value() : new String(r.value(), StandardCharsets.UTF_8);
        return EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(value));
    }

    static List<ChangeEvent> changes(List<ConsumerRecord<byte[], byte[]>> records, boolean bson) {
        List<ChangeEvent> out = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            if (isChange(r)) {
                out.add(decode(r, bson));
            }
        }
        return out;
    }

    static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
