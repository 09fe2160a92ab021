package dev.tideline.sink.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.mongo.NameFilter;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.Namespace;
import dev.tideline.sink.TestRecords;
import dev.tideline.sink.check.DestinationPolicy;
import dev.tideline.sink.config.TopicNamespaceMap;
import dev.tideline.sink.decode.SinkChange;
import java.util.List;
import java.util.Optional;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

class NamespaceRouterTest {
    private static SinkChange change(String topic, Namespace source) {
        return new SinkChange(TestRecords.record(topic, 0, null, null), SinkChange.Kind.WRITE, source, new BsonInt32(1),
                TestRecords.doc(1, "x"), null);
    }

    private static Namespace route(NamespaceRouter router, String topic, Namespace source) {
        return router.route(change(topic, source)).orElseThrow().destination();
    }

    @Test
    void defaultsToTheSourceNamespaceAndTheConfiguredDatabase() {
        NamespaceRouter same = new NamespaceRouter(Optional.empty(), TopicNamespaceMap.empty(), NameFilter.all(), DestinationPolicy.anyDatabase());
        NamespaceRouter replica = new NamespaceRouter(Optional.of("replica"), TopicNamespaceMap.empty(), NameFilter.all(), DestinationPolicy.anyDatabase());

        assertThat(route(same, "t", new Namespace("shop", "orders"))).isEqualTo(new Namespace("shop", "orders"));
        assertThat(route(replica, "t", new Namespace("shop", "orders"))).isEqualTo(new Namespace("replica", "orders"));
        assertThat(route(replica, "plain-topic", null)).isEqualTo(new Namespace("replica", "plain-topic"));
        assertThatThrownBy(() -> route(same, "plain-topic", null)).isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("topic.namespace.map");
    }

    @Test
    void exactTopicNamesWinOverRegexesWhichApplyInOrder() {
        TopicNamespaceMap map = TopicNamespaceMap.parse(
                "{\"tl\\\\..*\": \"archive.everything\", \"tl.shop.orders\": \"orders_copy\", \"tl\\\\.shop\\\\..*\": \"never\"}");
        NamespaceRouter router = new NamespaceRouter(Optional.of("dest"), map, NameFilter.all(), DestinationPolicy.anyDatabase());

        assertThat(route(router, "tl.shop.orders", new Namespace("shop", "orders"))).isEqualTo(new Namespace("dest", "orders_copy"));
        assertThat(route(router, "tl.shop.users", new Namespace("shop", "users"))).isEqualTo(new Namespace("archive", "everything"));
        assertThat(route(router, "other", new Namespace("shop", "users"))).isEqualTo(new Namespace("dest", "users"));
    }

    @Test
    void collectionOnlyTargetTakesTheSourceDatabaseWhenNoneIsConfigured() {
        NamespaceRouter router = new NamespaceRouter(Optional.empty(), TopicNamespaceMap.parse("{\"t\": \"renamed\"}"),
                NameFilter.all(), DestinationPolicy.anyDatabase());
        assertThat(route(router, "t", new Namespace("shop", "orders"))).isEqualTo(new Namespace("shop", "renamed"));
    }

    @Test
    void includeAndExcludeMatchTheSourceNamespace() {
        NameFilter filter = NameFilter.of("collection.include", List.of("shop\\..*"), List.of("shop\\.secrets"));
        NamespaceRouter router = new NamespaceRouter(Optional.of("dest"), TopicNamespaceMap.empty(), filter, DestinationPolicy.anyDatabase());

        assertThat(router.route(change("t", new Namespace("shop", "orders")))).isPresent();
        assertThat(router.route(change("t", new Namespace("shop", "secrets")))).isEmpty();
        assertThat(router.route(change("t", new Namespace("crm", "orders")))).isEmpty();
        // no source namespace: the destination namespace is matched
        assertThat(router.route(change("t", null))).isEmpty();
    }

    @Test
    void badMapsAreRefusedWithAReason() {
        assertThatThrownBy(() -> TopicNamespaceMap.parse("{not json")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a JSON object");
        assertThatThrownBy(() -> TopicNamespaceMap.parse("{\"a[\": \"x\"}")).hasMessageContaining("regular expression");
        assertThatThrownBy(() -> TopicNamespaceMap.parse("{\"a\": 3}")).hasMessageContaining("must be a string");
        assertThatThrownBy(() -> TopicNamespaceMap.parse("{\"a\": \".coll\"}")).hasMessageContaining("not a namespace");
    }
}
