package dev.tideline.fanout.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.fanout.channel.ChannelName;
import java.util.List;
import org.junit.jupiter.api.Test;

class AccessPolicyTest {
    private static boolean allows(String tenant, List<String> patterns, String channel) {
        return AccessPolicy.allows(new TokenClaims(null, tenant, patterns, 0), ChannelName.parse(channel).orElseThrow());
    }

    @Test
    void exactAndWildcardPatternsWithinTheTenant() {
        assertThat(allows("acme", List.of("shop.orders.acme"), "shop.orders.acme")).isTrue();
        assertThat(allows("acme", List.of("shop.orders.acme"), "shop.customers.acme")).isFalse();
        assertThat(allows("acme", List.of("shop.*.acme"), "shop.customers.acme")).isTrue();
        assertThat(allows("acme", List.of("shop.*.acme"), "shop.a.b.acme")).isTrue();
        assertThat(allows("acme", List.of("shop.*.acme"), "crm.customers.acme")).isFalse();
        assertThat(allows("acme", List.of("*.*.acme"), "crm.customers.acme")).isTrue();
    }

    @Test
    void neverAnotherTenantWhateverThePatternsSay() {
        assertThat(allows("acme", List.of("*.*.*"), "shop.orders.evil")).isFalse();
        assertThat(allows("acme", List.of("shop.orders.evil"), "shop.orders.evil")).isFalse();
        assertThat(allows("acme", List.of("*.*.*"), "shop.orders.acme")).isFalse(); // the tenant is never a wildcard
        assertThat(allows("acme", List.of("shop.orders.acme"), "shop.orders.acme2")).isFalse();
        assertThat(allows("acme", List.of("shop.orders.acme.evil"), "shop.orders.acme.evil")).isFalse();
        // a collection named like a tenant does not move the tenant
        assertThat(allows("acme", List.of("shop.*.acme"), "shop.acme.evil")).isFalse();
    }

    @Test
    void malformedPatternsGrantNothing() {
        assertThat(allows("acme", List.of("acme"), "shop.orders.acme")).isFalse();
        assertThat(allows("acme", List.of(".orders.acme"), "shop.orders.acme")).isFalse();
        assertThat(allows("acme", List.of("*"), "shop.orders.acme")).isFalse();
        assertThat(allows("acme", List.of(), "shop.orders.acme")).isFalse();
    }
}
