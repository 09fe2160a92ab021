package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.standin.MongoFixture;
import dev.tideline.standin.TcpProxy;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * What a task finds to capture: only real collections (a view in the database is neither captured nor
 * a failure), and, with mode=auto started while MongoDB does not answer, change streams once it does
 * (a time-out is never taken for "no change streams": deletes arrive, which the date scan cannot see).
 */
class SourceDiscoveryIT {

    @Test
    void aViewInTheDatabaseIsNotCapturedAndFailsNothing() {
        TestStack stack = TestStack.shared();
        String db = "view_it";
        String connector = "source-view-it";
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            MongoDatabase database = mongo.client().getDatabase(db);
            database.getCollection("orders").insertOne(new Document("_id", 1).append("open", true));
            database.createView("open_orders", "orders", List.of(new Document("$match", new Document("open", true))));
            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), db, "view", ValueFormat.BSON, 1);
            config.put("collection.discovery.interval.ms", "1000");
            stack.rest().putConnector(connector, config);
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                database.getCollection("orders").insertOne(new Document("_id", 2).append("open", true));
                List<ChangeEvent> orders = SourceItSupport.changes(TopicReader.readUntil(stack.bootstrapServers(), "view." + db + ".orders",
                        rs -> SourceItSupport.changes(rs, true).size() >= 2, "the copy and the insert", Duration.ofSeconds(90)), true);
                // a quiet period, not a wait for state: the view must NOT get a topic, and nothing tells that a listing
                // went by without one (discovery every second: three more listings meanwhile)
                Waits.quietPeriod(Duration.ofSeconds(3), "three more discoveries, none of which may capture the view");
                Set<String> topics = ScaleStack.topics(stack.bootstrapServers());
                System.out.printf("VIEW: orders captured (%d changes); topics of the database: %s; status %s%n", orders.size(),
                        topics.stream().filter(t -> t.startsWith("view.")).sorted().toList(), stack.rest().status(connector));
                assertThat(topics).doesNotContain("view." + db + ".open_orders");
                assertThat(stack.rest().status(connector).toString()).doesNotContain("FAILED");
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }

    @Test
    void autoModeStartedWhileMongoDbIsDownUsesChangeStreamsOnceItAnswers() {
        TestStack stack = TestStack.shared();
        String db = "auto_it";
        String connector = "source-auto-it";
        try (MongoFixture mongo = MongoFixture.withOplog(); TcpProxy proxy = new TcpProxy(mongo.port())) {
            MongoDatabase database = mongo.client().getDatabase(db);
            database.getCollection("items").insertOne(new Document("_id", 0).append("updatedAt", new java.util.Date()));
            Map<String, String> config = SourceItSupport.sourceConfig("mongodb://127.0.0.1:" + proxy.port() + "/?directConnection=true",
                    db, "auto", ValueFormat.BSON, 1);
            config.put("mode", "auto");
            config.put("mongodb.connect.timeout.ms", "1000");
            config.put("collection.discovery.interval.ms", "1000");
            stack.rest().putConnector(connector, config); // validate() needs the server: a new configuration is checked
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                proxy.refuse(); // MongoDB "down": the restarted task decides anew, while it cannot reach it
                stack.rest().restartConnector(connector, true);
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                // several discoveries and probes time out meanwhile: never FAILED (a negative claim, watched throughout)
                Waits.holdsThroughout("no FAILED connector or task while MongoDB is down", Duration.ofSeconds(8), Duration.ofMillis(500),
                        () -> assertThat(stack.rest().status(connector).toString()).doesNotContain("FAILED"));
                proxy.forward();
                TopicReader.readUntil(stack.bootstrapServers(), "auto." + db + ".items", 1, Duration.ofSeconds(90));
                database.getCollection("items").insertOne(new Document("_id", 1).append("updatedAt", new java.util.Date()));
                database.getCollection("items").deleteOne(Filters.eq("_id", 0));
                List<ChangeEvent> events = SourceItSupport.changes(TopicReader.readUntil(stack.bootstrapServers(), "auto." + db + ".items",
                        rs -> SourceItSupport.changes(rs, true).stream().anyMatch(e -> e.op() == Op.DELETE), "the delete",
                        Duration.ofSeconds(90)), true);
                System.out.println("AUTO: after the outage " + events.stream().map(e -> e.op().wireName() + ":" + e.id()).toList());
                assertThat(events).anyMatch(e -> e.op() == Op.DELETE && e.id().asInt32().getValue() == 0);
                assertThat(events).anyMatch(e -> e.op() == Op.INSERT && e.id().asInt32().getValue() == 1);
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }
}
