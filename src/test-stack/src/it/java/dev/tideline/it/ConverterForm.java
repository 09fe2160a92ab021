package dev.tideline.it;

import dev.tideline.event.ValueFormat;
import java.util.Map;

/**
 * A source output form with the converter that goes with it, as users configure them: the same
 * converter settings on the source and the sink.
 */
enum ConverterForm {
    JSON_SCHEMALESS(ValueFormat.JSON, "org.apache.kafka.connect.json.JsonConverter", false),
    JSON_SCHEMAS_ON(ValueFormat.JSON, "org.apache.kafka.connect.json.JsonConverter", true),
    STRUCT(ValueFormat.STRUCT, "org.apache.kafka.connect.json.JsonConverter", true),
    TEXT(ValueFormat.TEXT, "org.apache.kafka.connect.storage.StringConverter", false),
    BSON(ValueFormat.BSON, "org.apache.kafka.connect.converters.ByteArrayConverter", false);

    final ValueFormat format;
    final String converter;
    final boolean schemas;

    ConverterForm(ValueFormat format, String converter, boolean schemas) {
        this.format = format;
        this.converter = converter;
        this.schemas = schemas;
    }

    /** A name usable in database, topic and connector names. */
    String slug() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    /** Puts the output format (for a source) and the key and value converters into a connector config. */
    Map<String, String> applyTo(Map<String, String> config, boolean source) {
        if (source) {
            config.put("output.format", format.configName());
        }
        config.put("key.converter", converter);
        config.put("value.converter", converter);
        config.put("key.converter.schemas.enable", Boolean.toString(schemas));
        config.put("value.converter.schemas.enable", Boolean.toString(schemas));
        return config;
    }
}
