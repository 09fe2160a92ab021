package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.tideline.event.Namespace;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The start initial.sync=skip keeps in the source: taken once, found again by a restart, forgotten by an offset reset. */
class SkipStartsTest {
    private MongoFixture mongo;
    private MongoClient client;

    @BeforeEach
    void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        client = MongoClients.create(mongo.uri());
        client.getDatabase("shop").getCollection("orders").insertOne(new Document("_id", 1));
    }

    @AfterEach
    void stop() {
        client.close();
        mongo.close();
    }

    private long kept(String db) {
        return client.getDatabase(db).getCollection(SkipStarts.COLLECTION).countDocuments();
    }

    @Test
    void aRestartFindsTheStartTheFirstRunKept() {
        List<Namespace> listed = List.of(new Namespace("shop", "orders"));
        SkipStarts first = new SkipStarts(client, "src");
        first.beforeListing();
        first.ensure(listed, () -> false);
        StartPlanner.SkipStart taken = first.startOf(new Namespace("shop", "orders"));
        assertThat(taken.wasThere()).isTrue();

        SkipStarts restarted = new SkipStarts(client, "src"); // a new task run: nothing in memory
        restarted.beforeListing();
        restarted.ensure(List.of(new Namespace("shop", "orders"), new Namespace("shop", "created_later")), () -> false);
        assertThat(restarted.startOf(new Namespace("shop", "orders"))).isEqualTo(taken);
        assertThat(restarted.startOf(new Namespace("shop", "created_later")).wasThere()).as("created after the start: copied").isFalse();
        BsonDocument doc = client.getDatabase("shop").getCollection(SkipStarts.COLLECTION, BsonDocument.class).find().first();
        assertThat(doc.getString("_id").getValue()).isEqualTo("src");
        assertThat(doc.getTimestamp(SkipStarts.F_AT)).isEqualTo(taken.at());
    }

    @Test
    void eachConnectorKeepsItsOwnStart() {
        SkipStarts a = new SkipStarts(client, "a");
        a.beforeListing();
        a.ensure(List.of(new Namespace("shop", "orders")), () -> false);
        SkipStarts b = new SkipStarts(client, "b");
        b.beforeListing();
        b.ensure(List.of(new Namespace("shop", "orders")), () -> false);
        assertThat(kept("shop")).isEqualTo(2);
    }

    @Test
    void anOffsetResetForgetsTheStartOnlyWithSkip() {
        SkipStarts s = new SkipStarts(client, "src");
        s.beforeListing();
        s.ensure(List.of(new Namespace("shop", "orders")), () -> false);
        Map<Map<String, ?>, Map<String, ?>> reset = new HashMap<>();
        reset.put(SourcePartition.of(new Namespace("shop", "orders")), null);

        new TidelineSourceConnector().alterOffsets(config("full"), reset);
        assertThat(kept("shop")).as("full keeps no start: nothing to forget").isEqualTo(1);
        new TidelineSourceConnector().alterOffsets(config("skip"), Map.of(SourcePartition.of(new Namespace("shop", "orders")),
                SourceOffset.streamFrom(new org.bson.BsonTimestamp(5, 0)).toMap()));
        assertThat(kept("shop")).as("an edited offset is not a reset").isEqualTo(1);
        new TidelineSourceConnector().alterOffsets(config("skip"), reset);
        assertThat(kept("shop")).isZero();
    }

    private Map<String, String> config(String initialSync) {
        return Map.of("name", "src", "mongodb.uri", mongo.uri(), "initial.sync", initialSync, "topic.prefix", "t");
    }
}
