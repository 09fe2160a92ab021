package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static dev.tideline.it.SinkItSupport.send;
import static dev.tideline.it.SinkItSupport.sinkConfig;
import static dev.tideline.it.SinkItSupport.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.SinkItSupport.Workload;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

/**
 * config/sink-two-destinations: two sink connectors read the same topic, each writes to its own
 * destination server and takes only its own collections (include / exclude on the source namespace).
 */
class SinkTwoDestinationsIT {
    @Test
    void eachDestinationGetsExactlyItsCollections() {
        TestStack stack = TestStack.shared();
        String topic = "sink-it-two-destinations";
        stack.createTopic(topic, 2);
        Namespace orders = new Namespace("shop", "orders");
        Namespace products = new Namespace("shop", "products");
        Namespace sessions = new Namespace("shop", "sessions");
        Workload wo = Workload.generate(orders, 2_000, 400, 11);
        Workload wp = Workload.generate(products, 1_000, 200, 12);
        Workload ws = Workload.generate(sessions, 1_000, 200, 13);
        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(stack.bootstrapServers())) {
            for (int i = 0; i < 2_000; i++) { // interleaved, as one topic carrying several collections
                send(p, topic, null, wo.changes().get(i), ValueFormat.JSON);
                if (i < 1_000) {
                    send(p, topic, null, wp.changes().get(i), ValueFormat.JSON);
                    send(p, topic, null, ws.changes().get(i), ValueFormat.JSON);
                }
            }
            p.flush();
        }

        try (MongoFixture analytics = MongoFixture.withOplog(); MongoFixture archive = MongoFixture.withOplog()) {
            Map<String, String> a = sinkConfig(topic, analytics.uri(), "shop_analytics", ValueFormat.JSON);
            a.put("collection.include", "shop\\.orders,shop\\.products");
            Map<String, String> b = sinkConfig(topic, archive.uri(), "shop_archive", ValueFormat.JSON);
            b.put("collection.exclude", "shop\\.products");
            stack.rest().putConnector("sink-two-analytics", a);
            stack.rest().putConnector("sink-two-archive", b);
            stack.rest().awaitRunning("sink-two-analytics", 1, Duration.ofSeconds(60));
            stack.rest().awaitRunning("sink-two-archive", 1, Duration.ofSeconds(60));

            awaitEqual(analytics.client(), new Namespace("shop_analytics", "orders"), wo);
            awaitEqual(analytics.client(), new Namespace("shop_analytics", "products"), wp);
            awaitEqual(archive.client(), new Namespace("shop_archive", "orders"), wo);
            awaitEqual(archive.client(), new Namespace("shop_archive", "sessions"), ws);
            List<String> analyticsColls = collections(analytics.client(), "shop_analytics");
            List<String> archiveColls = collections(archive.client(), "shop_archive");
            System.out.printf("two destinations from one topic of %d changes: analytics %s (orders %d, products %d docs), "
                            + "archive %s (orders %d, sessions %d docs)%n", 4_000, analyticsColls, wo.expected().size(),
                    wp.expected().size(), archiveColls, wo.expected().size(), ws.expected().size());
            assertThat(analyticsColls).doesNotContain("sessions");
            assertThat(archiveColls).doesNotContain("products");
            stack.rest().deleteConnector("sink-two-analytics");
            stack.rest().deleteConnector("sink-two-archive");
        }
    }

    private static void awaitEqual(MongoClient client, Namespace ns, Workload w) {
        // json form: compared by value (JsonConverter maps do not keep field order)
        await(ns + " equal to its source", Duration.ofMinutes(2), () -> {
            var got = snapshot(client, ns);
            return got.size() == w.expected().size()
                    && w.expected().entrySet().stream().allMatch(e -> e.getValue().equals(got.get(e.getKey())));
        });
    }

    private static List<String> collections(MongoClient client, String db) {
        return client.getDatabase(db).listCollectionNames().into(new java.util.ArrayList<>()).stream().sorted().toList();
    }
}
