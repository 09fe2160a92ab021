package dev.tideline.event;

import java.util.Locale;

/**
 * How a change envelope (and a record key) is laid into a Kafka record value. Each form goes with
 * one converter ({@code dev.tideline.record.RecordForm} builds the records):
 * <ul>
 *   <li>{@code json}: a schemaless map shaped as Extended JSON ({@link ExtendedJson}); readable, works
 *       with JsonConverter ({@code schemas.enable=false}) and SMTs.</li>
 *   <li>{@code bson}: the envelope's BSON bytes; lossless to the byte, for ByteArrayConverter.</li>
 *   <li>{@code text}: the envelope as canonical Extended JSON text, for StringConverter.</li>
 *   <li>{@code struct}: a Connect Struct with one fixed schema ({@code dev.tideline.record.EnvelopeStruct}) whose document is
 *       canonical Extended JSON text: for JsonConverter with {@code schemas.enable=true} (or a schema
 *       registry converter); the schema never changes from one document to the next.</li>
 * </ul>
 */
public enum ValueFormat {
    JSON, BSON, TEXT, STRUCT;

    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ValueFormat fromConfig(String value) {
        for (ValueFormat f : values()) {
            if (f.configName().equalsIgnoreCase(value == null ? "" : value.trim())) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown format '" + value + "': expected json, bson, text or struct");
    }
}
