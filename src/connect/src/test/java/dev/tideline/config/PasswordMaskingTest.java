package dev.tideline.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.sink.config.SinkConfig;
import dev.tideline.source.config.SourceConfig;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/**
 * Both connection strings are PASSWORD settings, so what Connect prints of a config (its "values:"
 * dump at start-up, the validate answer) shows {@code [hidden]}, never the string.
 */
class PasswordMaskingTest {
    private static final String URI = "mongodb://app:pw-7f3a9c@db.example.net:27017/?authSource=admin";

    @Test
    void sourceUriIsAPasswordAndPrintsHidden() {
        assertMasked(SourceConfig.CONFIG_DEF, new SourceConfig(Map.of(MongoClientFactory.URI_KEY, URI)));
    }

    @Test
    void sinkUriIsAPasswordAndPrintsHidden() {
        assertMasked(SinkConfig.configDef(), new SinkConfig(Map.of(MongoClientFactory.URI_KEY, URI, "database", "copy")));
    }

    private static void assertMasked(ConfigDef def, AbstractConfig config) {
        assertThat(def.configKeys().get(MongoClientFactory.URI_KEY).type).isEqualTo(ConfigDef.Type.PASSWORD);
        // AbstractConfig logs each parsed value's toString(); Connect's validate answer is built the same way
        assertThat(String.valueOf(config.values().get(MongoClientFactory.URI_KEY))).isEqualTo("[hidden]");
        assertThat(config.values().toString()).doesNotContain("pw-7f3a9c");
        assertThat(config.getPassword(MongoClientFactory.URI_KEY).value()).isEqualTo(URI);
    }
}
