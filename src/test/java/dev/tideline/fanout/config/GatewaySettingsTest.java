package dev.tideline.fanout.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.event.ValueFormat;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class GatewaySettingsTest {
    private static Map<String, String> minimal() {
        Map<String, String> m = new HashMap<>();
        m.put(GatewaySettings.AUTH_SECRET, "0123456789abcdef0123456789abcdef");
        return m;
    }

    @Test
    void defaultsAreLoopbackJsonAndBoundedQueues() {
        GatewaySettings s = new GatewaySettings(minimal());

        assertThat(s.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(s.valueFormat()).isEqualTo(ValueFormat.JSON);
        assertThat(s.topics().matcher("tideline.shop.orders").matches()).isTrue();
        assertThat(s.queueMaxBytes()).isEqualTo(1_048_576L);
        assertThat(s.historySize()).isEqualTo(1000);
    }

    @Test
    void theShippedPropertiesFileIsValid() throws Exception {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of("config/fanout-gateway.properties"))) {
            p.load(r);
        }
        GatewaySettings s = new GatewaySettings(p);

        assertThat(s.topics().matcher("tideline.shop.orders").matches()).isTrue();
        assertThat(s.topics().matcher("other.shop.orders").matches()).isFalse();
    }

    @Test
    void refusesAShortSecretABadRegexAndAnUnknownFormat() {
        Map<String, String> shortSecret = minimal();
        shortSecret.put(GatewaySettings.AUTH_SECRET, "short");
        Map<String, String> badRegex = minimal();
        badRegex.put(GatewaySettings.TOPICS_REGEX, "tideline.(");
        Map<String, String> badFormat = minimal();
        badFormat.put(GatewaySettings.VALUE_FORMAT, "avro");

        assertThatThrownBy(() -> new GatewaySettings(shortSecret)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("at least 32 bytes").hasMessageNotContaining("short");
        assertThatThrownBy(() -> new GatewaySettings(badRegex)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("regular expression");
        assertThatThrownBy(() -> new GatewaySettings(badFormat)).isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> new GatewaySettings(Map.of())).isInstanceOf(ConfigException.class)
                .hasMessageContaining(GatewaySettings.AUTH_SECRET);
    }
}
