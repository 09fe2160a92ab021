package dev.tideline.fanout.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ResumeCursorTest {
    private static final ChannelName ORDERS = new ChannelName("shop", "orders", "acme");
    private static final ChannelName USERS = new ChannelName("shop", "users.v2", "acme");

    @Test
    void formatsAndParsesKafkaPositionsPerChannel() {
        Positions orders = new Positions(Map.of(new TopicPartition("tideline.shop.orders", 0), 12L,
                new TopicPartition("tideline.shop.orders", 2), 7L));
        Positions users = new Positions();
        String text = ResumeCursor.format(1_700_000_000_000L, List.of(ORDERS, USERS), new Positions[] {orders, users});

        assertThat(text).isEqualTo("1|1700000000000|shop.orders.acme=tideline.shop.orders@12..7|shop.users.v2.acme=");
        ResumeCursor back = ResumeCursor.parse(text).orElseThrow();
        assertThat(back.subscribedAtMillis()).isEqualTo(1_700_000_000_000L);
        assertThat(back.channels().get(ORDERS)).isEqualTo(orders);
        assertThat(back.channels().get(ORDERS).get(new TopicPartition("tideline.shop.orders", 1))).isEqualTo(-1);
        assertThat(back.channels().get(USERS).isEmpty()).isTrue();
    }

    @Test
    void severalTopicsPerChannelRoundTrip() {
        Positions p = new Positions(Map.of(new TopicPartition("a.shop.orders", 0), 1L, new TopicPartition("b.orders", 1), 9L));
        String text = ResumeCursor.format(5, List.of(ORDERS), new Positions[] {p});

        assertThat(text).isEqualTo("1|5|shop.orders.acme=a.shop.orders@1;b.orders@.9");
        assertThat(ResumeCursor.parse(text).orElseThrow().channels().get(ORDERS)).isEqualTo(p);
    }

    @Test
    void refusesWhatIsNotACursor() {
        assertThat(ResumeCursor.parse(null)).isEmpty();
        assertThat(ResumeCursor.parse("")).isEmpty();
        assertThat(ResumeCursor.parse("e1:7,3")).isEmpty();                        // the format of earlier versions
        assertThat(ResumeCursor.parse("2|5|shop.orders.acme=t@1")).isEmpty();      // another version
        assertThat(ResumeCursor.parse("1|x|shop.orders.acme=t@1")).isEmpty();
        assertThat(ResumeCursor.parse("1|5|shop.orders=t@1")).isEmpty();          // not a channel
        assertThat(ResumeCursor.parse("1|5|shop.orders.acme=t@-1")).isEmpty();
        assertThat(ResumeCursor.parse("1|5|shop.orders.acme=t@1@2")).isEmpty();
        assertThat(ResumeCursor.parse("1|5|shop.orders.acme=t/x@1")).isEmpty();    // not a topic name
        assertThat(ResumeCursor.parse("1|5|shop.orders.acme=t@1|shop.orders.acme=t@2")).isEmpty();
        assertThat(ResumeCursor.parse("1|5|shop.orders.acme=t@" + "9".repeat(19))).isEmpty();
        assertThat(ResumeCursor.parse("1|5|shop.orders.acme=t@" + "1.".repeat(5000))).isEmpty();
        assertThat(ResumeCursor.parse("1|5|shop.orders.acme=t@1" + ".".repeat(ResumeCursor.MAX_LENGTH))).isEmpty();
        assertThat(ResumeCursor.parse("1|5")).isPresent();
    }
}
