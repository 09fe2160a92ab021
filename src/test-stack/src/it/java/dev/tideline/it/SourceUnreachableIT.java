package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.mongodb.client.MongoDatabase;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.ValueFormat;
import dev.tideline.standin.MongoFixture;
import dev.tideline.standin.TcpProxy;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * The connector and its tasks start while MongoDB is unreachable (here: a port with nothing listening,
 * later a server on it again): nothing FAILS, the tasks retry with back-off, and capture begins once
 * the server answers, including a collection created during the outage.
 */
class SourceUnreachableIT {

    @Test
    void startsWhileTheSourceIsDownAndCapturesOnceItIsBack() {
        TestStack stack = TestStack.shared();
        String connector = "source-unreachable-it";
        String db = "unreach_it";
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            try (TcpProxy proxy = new TcpProxy(mongo.port())) { // the primary's port
                MongoDatabase database = mongo.client().getDatabase(db);
                for (int i = 1; i <= 5; i++) {
                    database.getCollection("a").insertOne(new Document("_id", i));
                }
                Map<String, String> config = SourceItSupport.sourceConfig("mongodb://127.0.0.1:" + proxy.port() + "/?directConnection=true",
                        db, "unreach", ValueFormat.BSON, 1);
                config.put("mongodb.connect.timeout.ms", "2000");
                config.put("collection.discovery.interval.ms", "1000");
                stack.rest().putConnector(connector, config);
                try {
                    stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                    TopicReader.readUntil(stack.bootstrapServers(), "unreach." + db + ".a", 5, Duration.ofSeconds(60));

                    proxy.refuse(); // MongoDB is now "down": connection refused
                    stack.rest().restartConnector(connector, true);
                    // the connector's start lists collections (times out after 2 s) and the tasks' captures fail
                    // and back off: watch them well past that; before, a start without MongoDB left it FAILED
                    // (a negative claim, "never FAILED", so a bounded window watched throughout)
                    JsonNode[] last = new JsonNode[1];
                    Waits.holdsThroughout("no FAILED connector or task while MongoDB is down", Duration.ofSeconds(12),
                            Duration.ofMillis(500), () -> {
                                last[0] = stack.rest().statusOrEmpty(connector);
                                assertThat(last[0].toString()).as("status while MongoDB is down").doesNotContain("FAILED");
                            });
                    JsonNode status = last[0];
                    System.out.println("status after 12 s without MongoDB: " + status);
                    assertThat(status.path("connector").path("state").asText()).isEqualTo("RUNNING");

                    // written during the outage: 3 more in a, and a collection the connector has never seen
                    for (int i = 6; i <= 8; i++) {
                        database.getCollection("a").insertOne(new Document("_id", i));
                    }
                    for (int i = 1; i <= 4; i++) {
                        database.getCollection("b").insertOne(new Document("_id", i));
                    }
                    long back = System.nanoTime();
                    proxy.forward();
                    // distinct ids, not records: a task restarted before its first offset commit copies "a" again
                    Set<Integer> a = ids(TopicReader.readUntil(stack.bootstrapServers(), "unreach." + db + ".a",
                            rs -> ids(rs).size() >= 8, "8 distinct documents", Duration.ofSeconds(120)));
                    Set<Integer> b = ids(TopicReader.readUntil(stack.bootstrapServers(), "unreach." + db + ".b",
                            rs -> ids(rs).size() >= 4, "4 distinct documents", Duration.ofSeconds(120)));
                    System.out.printf("MongoDB back: captured a=%s b=%s within %d ms%n", a, b, (System.nanoTime() - back) / 1_000_000);
                    assertThat(a).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
                    assertThat(b).containsExactly(1, 2, 3, 4);
                    stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                } finally {
                    stack.rest().deleteConnector(connector);
                }
            }
        }
    }

    private static Set<Integer> ids(java.util.List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> records) {
        Set<Integer> out = new TreeSet<>();
        for (ChangeEvent e : SourceItSupport.changes(records, true)) {
            out.add(e.id().asInt32().getValue());
        }
        return out;
    }
}
