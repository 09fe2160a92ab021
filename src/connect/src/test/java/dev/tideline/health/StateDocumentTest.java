package dev.tideline.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

class StateDocumentTest {
    private static final TaskIdentity TASK = new TaskIdentity("shop-source", 1);
    private static final Instant NOW = Instant.parse("2026-11-30T08:00:00Z");

    @Test
    void oneDocumentPerTaskWithHealthPositionAndCounts() {
        HealthWatch watch = new HealthWatch("test");
        SourceCollectionMetrics orders = new SourceCollectionMetrics("shop.orders", "change stream of shop", watch);
        orders.opened("stream", null);
        orders.published(3, 1, NOW.getEpochSecond() - 2, NOW.toEpochMilli());
        orders.position(Map.of("v", 1, "phase", "stream", "startAt", 42L));
        orders.retrying(false);
        SourceCollectionMetrics customers = new SourceCollectionMetrics("shop.customers", "change stream of shop", watch);

        BsonDocument doc = StateDocument.of(TASK, watch.current(), List.of(orders, customers), "host-a", 4242, NOW);

        assertThat(doc.get("_id")).isEqualTo(new BsonString("shop-source/1"));
        assertThat(doc.getString("health").getValue()).isEqualTo("degraded");
        assertThat(doc.getArray("reasons")).containsExactly(new BsonString("shop.orders: retrying"));
        assertThat(doc.getString("host").getValue()).isEqualTo("host-a");
        assertThat(doc.getInt64("pid").getValue()).isEqualTo(4242);
        assertThat(doc.getDateTime("updatedAt").getValue()).isEqualTo(NOW.toEpochMilli());
        BsonDocument first = doc.getArray("collections").get(0).asDocument();
        assertThat(first.getString("ns").getValue()).isEqualTo("shop.orders");
        assertThat(first.getString("phase").getValue()).isEqualTo("stream");
        assertThat(first.getInt64("events").getValue()).isEqualTo(3);
        assertThat(first.getDateTime("lastEventClusterTime").getValue()).isEqualTo(NOW.toEpochMilli() - 2_000);
        assertThat(first.getDocument("position").get("startAt")).isEqualTo(new BsonInt64(42));
        assertThat(first.getDocument("position").getString("phase").getValue()).isEqualTo("stream");
        BsonDocument second = doc.getArray("collections").get(1).asDocument();
        assertThat(second.isNull("position")).isTrue();
        assertThat(second.isNull("lastEventClusterTime")).isTrue();
    }

    @Test
    void aStoppedTaskSaysSo() {
        BsonDocument doc = StateDocument.of(TASK, null, List.of(), "h", 1, NOW);
        assertThat(doc.getString("health").getValue()).isEqualTo("stopped");
        assertThat(doc.getArray("reasons")).isEmpty();
        assertThat(Health.rollUp("x", Set.of()).state().wireName()).isEqualTo("ok");
    }
}
