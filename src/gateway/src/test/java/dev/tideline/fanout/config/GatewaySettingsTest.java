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

        assertThat(s.http().bindAddress()).isEqualTo("127.0.0.1");
        assertThat(s.http().allowedOrigins()).isEmpty();
        assertThat(s.http().maxConnections()).isEqualTo(20_000);
        assertThat(s.kafka().valueFormat()).isEqualTo(ValueFormat.JSON);
        assertThat(s.kafka().topics().matcher("tideline.shop.orders").matches()).isTrue();
        assertThat(s.delivery().queueMaxBytes()).isEqualTo(1_048_576L);
        assertThat(s.resume().history().maxCount()).isEqualTo(1000);
        assertThat(s.resume().history().totalMaxBytes()).isEqualTo(128L << 20);
    }

    @Test
    void theShippedPropertiesFileIsValidOnceTheOperatorSetsASecret() throws Exception {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(Path.of("config/fanout-gateway.properties"))) {
            p.load(r);
        }
        // as shipped, its placeholder secret is refused, with what to do
        assertThatThrownBy(() -> new GatewaySettings(p)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("example value shipped").hasMessageContaining("FANOUT_HMAC_SECRET")
                .hasMessageNotContaining(AuthSettings.SHIPPED_PLACEHOLDER);
        p.setProperty(GatewaySettings.AUTH_SECRET, "an-operator-secret-of-more-than-32-bytes");
        GatewaySettings s = new GatewaySettings(p);

        assertThat(s.kafka().topics().matcher("tideline.shop.orders").matches()).isTrue();
        assertThat(s.kafka().topics().matcher("other.shop.orders").matches()).isFalse();
    }

    @Test
    void refusesTheSecretEarlierVersionsShippedAndBadOrigins() {
        Map<String, String> former = minimal();
        former.put(GatewaySettings.AUTH_SECRET, AuthSettings.FORMER_SHIPPED);
        Map<String, String> origin = minimal();
        origin.put(HttpSettings.ALLOWED_ORIGINS, "https://app.example.com/path");

        assertThatThrownBy(() -> new GatewaySettings(former)).isInstanceOf(ConfigException.class).hasMessageContaining("example value");
        assertThatThrownBy(() -> new GatewaySettings(origin)).isInstanceOf(ConfigException.class).hasMessageContaining("no path");
        Map<String, String> passthrough = minimal();
        passthrough.put("kafka.consumer.security.protocol", "SASL_SSL");
        assertThat(new GatewaySettings(passthrough).kafka().clientOverrides()).containsEntry("security.protocol", "SASL_SSL");
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
