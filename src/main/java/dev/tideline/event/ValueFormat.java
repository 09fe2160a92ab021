package dev.tideline.event;

import java.util.Locale;

/**
 * How a change envelope (and a record key) is laid into a Kafka record value.
 * <ul>
 *   <li>{@code json}: a schemaless map shaped as Extended JSON ({@link ExtendedJson}); readable, works
 *       with JsonConverter ({@code schemas.enable=false}) and SMTs.</li>
 *   <li>{@code bson}: the envelope's BSON bytes; lossless to the byte, for ByteArrayConverter.</li>
 * </ul>
 */
public enum ValueFormat {
    JSON, BSON;

    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ValueFormat fromConfig(String value) {
        for (ValueFormat f : values()) {
            if (f.configName().equalsIgnoreCase(value == null ? "" : value.trim())) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown format '" + value + "': expected json or bson");
    }
}
