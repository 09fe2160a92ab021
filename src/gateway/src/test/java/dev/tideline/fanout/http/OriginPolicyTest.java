package dev.tideline.fanout.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class OriginPolicyTest {
    private static final List<String> OWN = List.of("http://127.0.0.1:8090");

    @Test
    void allowsTheGatewaysOwnPagesTheListedOnesAndNonBrowsers() {
        OriginPolicy p = new OriginPolicy(List.of("https://app.example.com"), () -> OWN);

        assertThat(p.allows(null)).isTrue();
        assertThat(p.allows("http://127.0.0.1:8090")).isTrue();
        assertThat(p.allows("https://APP.example.com/")).isTrue();
        assertThat(p.allows("https://evil.example")).isFalse();
        assertThat(p.allows("http://127.0.0.1:8091")).isFalse();
        assertThat(p.allows("null")).isFalse();
        assertThat(new OriginPolicy(List.of("*"), () -> OWN).allows("https://evil.example")).isTrue();
        assertThat(new OriginPolicy(List.of(), () -> OWN).allows("https://app.example.com")).isFalse();
        assertThat(p.isCrossOrigin("https://app.example.com")).isTrue();
        assertThat(p.isCrossOrigin("http://127.0.0.1:8090")).isFalse();
        assertThat(p.isCrossOrigin(null)).isFalse();
    }

    @Test
    void theGatewaysOwnOriginsAreTheConfiguredOnesNotWhatARequestSays() {
        OriginPolicy behindProxy = new OriginPolicy(List.of(), () -> List.of("https://events.example.com"));

        assertThat(behindProxy.allows("https://events.example.com")).isTrue();
        // a page of evil.example whose request says Host: evil.example was the gateway's own before; no Host is asked now
        assertThat(behindProxy.allows("https://evil.example")).isFalse();
        assertThat(behindProxy.allows("http://127.0.0.1:8090")).isFalse();
    }
}
