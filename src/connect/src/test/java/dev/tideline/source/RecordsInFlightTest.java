package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** records.in.flight.max through the task's own poll(): no more records until Connect acknowledges some. */
class RecordsInFlightTest {
    private MongoFixture mongo;
    private TidelineSourceTask task;

    @BeforeEach
    void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        try (MongoClient client = MongoClients.create(mongo.uri())) {
            List<Document> docs = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                docs.add(new Document("_id", i));
            }
            client.getDatabase("shop").getCollection("orders").insertMany(docs);
        }
    }

    @AfterEach
    void stop() {
        if (task != null) {
            task.stop();
        }
        mongo.close();
    }

    @Test
    void aTaskAtTheBoundHandsOverNothingUntilRecordsAreAcknowledged() throws InterruptedException {
        task = new TidelineSourceTask();
        task.initialize(TaskContexts.withOffset(null));
        task.start(Map.of("name", "src", "mongodb.uri", mongo.uri(), "database.include", "shop", "topic.prefix", "t",
                "initial.sync", "full", "batch.size", "2", "records.in.flight.max", "3", dev.tideline.health.TaskIdentity.TASK_INDEX, "0", TaskOwnership.COUNT, "1"));
        List<SourceRecord> handed = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 20_000;
        while (handed.size() < 3 && System.currentTimeMillis() < deadline) {
            List<SourceRecord> got = task.poll();
            if (got != null) {
                handed.addAll(got);
            }
        }
        assertThat(handed).hasSizeGreaterThanOrEqualTo(3);
        assertThat(task.poll()).as("at the bound: nothing more until acknowledged").isNull();
        for (SourceRecord r : handed) {
            task.commitRecord(r, null);
        }
        List<SourceRecord> more = null;
        while (more == null && System.currentTimeMillis() < deadline) {
            more = task.poll();
        }
        assertThat(more).as("acknowledged: the copy goes on").isNotEmpty();
    }
}
