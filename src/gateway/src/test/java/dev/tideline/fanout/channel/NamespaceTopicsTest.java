package dev.tideline.fanout.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class NamespaceTopicsTest {
    @Test
    void findsTopicsByTheSourcesNamingAndByWhatWasReadFromThem() {
        NamespaceTopics n = new NamespaceTopics();
        List<String> assigned = List.of("tideline.shop.orders", "tideline.shop.orders.archive", "custom-orders", "tideline.crm.orders");

        assertThat(n.topicsFor("shop", "orders", assigned)).containsExactly("tideline.shop.orders");
        n.learned("shop", "orders", "custom-orders");
        n.learned("shop", "orders", "not-assigned-any-more");
        assertThat(n.topicsFor("shop", "orders", assigned)).containsExactly("custom-orders", "tideline.shop.orders");
        assertThat(n.topicsFor("shop", "orders.archive", assigned)).containsExactly("tideline.shop.orders.archive");
        assertThat(n.topicsFor("crm", "leads", assigned)).isEmpty();
    }
}
