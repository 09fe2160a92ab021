package dev.tideline.fanout.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class ConsumerHealthTest {
    @Test
    void reportsStartingRunningDownAndBack() {
        ConsumerHealth h = new ConsumerHealth();
        assertThat(h.canDeliver()).isFalse();
        assertThat(BsonDocument.parse(h.json(1000)).getString("status").getValue()).isEqualTo("starting");

        h.contact(1000, 12);
        assertThat(h.canDeliver()).isTrue();
        BsonDocument ok = BsonDocument.parse(h.json(1500));
        assertThat(ok.getString("status").getValue()).isEqualTo("ok");
        assertThat(ok.getDocument("consumer").getNumber("lagRecords").longValue()).isEqualTo(12);

        assertThat(h.failed(2000, new org.apache.kafka.common.errors.TimeoutException("Timeout expired while fetching topic metadata"))).isTrue();
        assertThat(h.failed(3000, new IllegalStateException("again \"quoted\""))).isFalse(); // the same outage
        assertThat(h.canDeliver()).isFalse();
        BsonDocument down = BsonDocument.parse(h.json(9000));
        assertThat(down.getString("status").getValue()).isEqualTo("down");
        assertThat(down.getDocument("consumer").getNumber("downForMs").longValue()).isEqualTo(7000);
        assertThat(down.getDocument("consumer").getString("lastError").getValue()).contains("again \"quoted\"");
        BsonDocument forAnyone = BsonDocument.parse(h.json(9000, false));
        assertThat(forAnyone.getString("status").getValue()).isEqualTo("down");
        assertThat(forAnyone.getDocument("consumer").keySet()).containsExactly("state", "downForMs");

        h.contact(10_000, 0);
        assertThat(h.canDeliver()).isTrue();
        h.stopped(null);
        assertThat(h.state()).isEqualTo(ConsumerHealth.State.STOPPED);
        assertThat(h.canDeliver()).isFalse();
    }
}
