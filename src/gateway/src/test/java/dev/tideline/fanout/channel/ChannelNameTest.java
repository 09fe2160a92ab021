package dev.tideline.fanout.channel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ChannelNameTest {
    @Test
    void parsesDbCollectionAndTenantWithDotsOnlyInTheCollection() {
        assertThat(ChannelName.parse("shop.orders.acme")).contains(new ChannelName("shop", "orders", "acme"));
        assertThat(ChannelName.parse("shop.orders.2025.acme")).contains(new ChannelName("shop", "orders.2025", "acme"));
        assertThat(new ChannelName("shop", "a.b", "t-1").toString()).isEqualTo("shop.a.b.t-1");
    }

    @Test
    void refusesTricks() {
        for (String bad : new String[] {"shop.orders", "shop..acme", ".orders.acme", "shop.orders.", "shop.*.acme",
                "shop.orders.*", "*.orders.acme", "shop.orders.acme%2Eevil", "shop.orders%2Eacme.evil", "shop.or ders.acme",
                "shop.orders.ac/me", "shop.../acme", "shop.orders..acme", "shop.orders.acme\n", "shop.ordérs.acme",
                "shop.orders.acme\u0000", "", "shop", "shop.orders.acme?x", "shop.orders.acme#x", "shop.orders.ac\\me"}) {
            assertThat(ChannelName.parse(bad)).as(bad).isEmpty();
        }
        assertThat(ChannelName.parse(null)).isEmpty();
    }
}
