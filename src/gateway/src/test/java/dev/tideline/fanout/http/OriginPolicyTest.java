package dev.tideline.fanout.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class OriginPolicyTest {
    @Test
    void allowsTheGatewaysOwnPagesTheListedOnesAndNonBrowsers() {
        OriginPolicy p = new OriginPolicy(List.of("https://app.example.com"));

        assertThat(p.allows(null, "127.0.0.1:8090")).isTrue();
        assertThat(p.allows("http://127.0.0.1:8090", "127.0.0.1:8090")).isTrue();
        assertThat(p.allows("https://APP.example.com/", "gw:8090")).isTrue();
        assertThat(p.allows("https://evil.example", "gw:8090")).isFalse();
        assertThat(p.allows("http://127.0.0.1:8091", "127.0.0.1:8090")).isFalse();
        assertThat(p.allows("null", "gw:8090")).isFalse();
        assertThat(new OriginPolicy(List.of("*")).allows("https://evil.example", "gw")).isTrue();
        assertThat(new OriginPolicy(List.of()).allows("https://app.example.com", "gw:8090")).isFalse();
        assertThat(p.isCrossOrigin("https://app.example.com", "gw:8090")).isTrue();
        assertThat(p.isCrossOrigin("http://gw:8090", "gw:8090")).isFalse();
    }
}
