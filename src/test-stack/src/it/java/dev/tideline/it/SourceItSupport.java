package dev.tideline.it;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import java.nio.charset.StandardCharsets;
import dev.tideline.event.ValueFormat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** Source connector configs for ITs, and decoding of what it wrote (json text from JsonConverter, or bson bytes). */
final class SourceItSupport {
    static final String SOURCE_CLASS = "dev.tideline.source.TidelineSourceConnector";

    private SourceItSupport() {
    }

    /**
     * A source capturing one database into {@code <prefix>.<db>.<coll>}, with the converters that go
     * with the format: JsonConverter without schemas for json, ByteArrayConverter for bson.
     */
    static Map<String, String> sourceConfig(String uri, String db, String prefix, ValueFormat format, int tasks) {
        Map<String, String> config = new HashMap<>();
        config.put("connector.class", SOURCE_CLASS);
        config.put("tasks.max", Integer.toString(tasks));
        config.put("mongodb.uri", uri);
        config.put("database.include", db);
        config.put("topic.prefix", prefix);
        config.put("output.format", format.configName());
        if (format == ValueFormat.JSON) {
            config.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
            config.put("key.converter.schemas.enable", "false");
            config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
            config.put("value.converter.schemas.enable", "false");
        } else {
            config.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
            config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        }
        return config;
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
