package dev.tideline.source.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.event.Namespace;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

class TopicNamerTest {
    private static BsonDocument map(String... keysAndTopics) {
        BsonDocument d = new BsonDocument();
        for (int i = 0; i < keysAndTopics.length; i += 2) {
            d.append(keysAndTopics[i], new BsonString(keysAndTopics[i + 1]));
        }
        return d;
    }

    @Test
    void defaultIsPrefixDbColl() {
        TopicNamer namer = TopicNamer.fromConfig("tl", new BsonDocument());
        assertThat(namer.topicFor(new Namespace("shop", "orders"))).isEqualTo("tl.shop.orders");
        assertThat(namer.topicFor(new Namespace("shop", "orders.2024"))).isEqualTo("tl.shop.orders.2024");
    }

    @Test
    void exactOverride() {
        TopicNamer namer = TopicNamer.fromConfig("tl", map("shop.orders", "orders"));
        assertThat(namer.topicFor(new Namespace("shop", "orders"))).isEqualTo("orders");
        assertThat(namer.topicFor(new Namespace("shop", "carts"))).isEqualTo("tl.shop.carts");
    }

    @Test
    void regexOverrideWithGroups() {
        TopicNamer namer = TopicNamer.fromConfig("tl", map("regex:logs\\.(.*)_(\\d+)", "logs-$1-y$2"));
        assertThat(namer.topicFor(new Namespace("logs", "app_2024"))).isEqualTo("logs-app-y2024");
        assertThat(namer.topicFor(new Namespace("logs", "app"))).isEqualTo("tl.logs.app");
        // must match the whole namespace
        assertThat(namer.topicFor(new Namespace("xlogs", "app_1"))).isEqualTo("tl.xlogs.app_1");
    }

    @Test
    void regexWithReluctantQuantifierReplacesTheWholeNamespace() {
        // the topic is the replacement of the WHOLE match: a reluctant pattern must not leave a tail behind
        TopicNamer namer = TopicNamer.fromConfig("tl", map("regex:logs\\..+?", "all-logs", "regex:shop\\.(.*?)", "s-$1"));
        assertThat(namer.topicFor(new Namespace("logs", "app"))).isEqualTo("all-logs");
        assertThat(namer.topicFor(new Namespace("shop", "orders"))).isEqualTo("s-orders");
    }

    @Test
    void regexOverridesAreTriedInOrder() {
        TopicNamer namer = TopicNamer.fromConfig("tl", map("regex:shop\\.special", "first", "regex:shop\\..*", "second"));
        assertThat(namer.topicFor(new Namespace("shop", "special"))).isEqualTo("first");
        assertThat(namer.topicFor(new Namespace("shop", "other"))).isEqualTo("second");
    }

    @Test
    void exactWinsOverRegexWhateverTheOrder() {
        TopicNamer namer = TopicNamer.fromConfig("tl", map("regex:shop\\.(.*)", "shop-$1", "shop.orders", "orders-exact"));
        assertThat(namer.topicFor(new Namespace("shop", "orders"))).isEqualTo("orders-exact");
        assertThat(namer.topicFor(new Namespace("shop", "carts"))).isEqualTo("shop-carts");
    }

    @Test
    void illegalCharactersAreSanitized() {
        TopicNamer namer = TopicNamer.fromConfig("tl", map("regex:(.*)\\.(.*)", "x $1/$2"));
        assertThat(namer.topicFor(new Namespace("my db", "ördérs"))).isEqualTo("x_my_db__rd_rs");
        TopicNamer plain = TopicNamer.fromConfig("tl", new BsonDocument());
        assertThat(plain.topicFor(new Namespace("db", "a b$c"))).isEqualTo("tl.db.a_b_c");
        assertThat(TopicNamer.sanitize("a".repeat(300))).hasSize(249);
    }

    @Test
    void illegalExactTopicIsRejected() {
        assertThatThrownBy(() -> TopicNamer.fromConfig("tl", map("shop.orders", "bad topic!")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("topic.namespace.map").hasMessageContaining("bad topic!");
        assertThatThrownBy(() -> TopicNamer.fromConfig("tl", map("shop.orders", "")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("topic.namespace.map");
    }

    @Test
    void nonStringTopicAndBadRegexAreRejected() {
        assertThatThrownBy(() -> TopicNamer.fromConfig("tl", new BsonDocument("shop.orders", new BsonInt32(1))))
                .isInstanceOf(ConfigException.class).hasMessageContaining("shop.orders");
        assertThatThrownBy(() -> TopicNamer.fromConfig("tl", map("regex:shop\\.(", "x")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("topic.namespace.map")
                .hasMessageContaining("not a valid regular expression");
    }
}
