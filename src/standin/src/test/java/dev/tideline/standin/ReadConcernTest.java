package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.ClientSessionOptions;
import com.mongodb.MongoCommandException;
import com.mongodb.ReadConcern;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Filters;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Item: {@code readConcern: {level: "majority", afterClusterTime}} on find and aggregate, and {@code operationTime}
 * in replies so that the driver's causally consistent sessions work
 * (https://www.mongodb.com/docs/manual/core/causal-consistency-read-write-concerns/).
 */
class ReadConcernTest {
    private MongoFixture mongo;

    @AfterEach
    void stop() {
        mongo.close();
    }

    @Test
    void aCausallyConsistentSessionReadsItsOwnWritesWithAfterClusterTime() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        List<BsonDocument> sent = new CopyOnWriteArrayList<>();
        var listener = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                if (event.getCommandName().equals("find") || event.getCommandName().equals("aggregate")) {
                    sent.add(event.getCommand().clone());
                }
            }
        };
        try (var client = com.mongodb.client.MongoClients.create(com.mongodb.MongoClientSettings.builder()
                .applyConnectionString(new com.mongodb.ConnectionString(mongo.uri())).addCommandListener(listener).build());
             ClientSession session = client.startSession(ClientSessionOptions.builder().causallyConsistent(true).build())) {
            MongoCollection<Document> c = client.getDatabase("causal").getCollection("c").withReadConcern(ReadConcern.MAJORITY);
            c.insertOne(session, new Document("_id", 1));
            BsonTimestamp afterWrite = session.getOperationTime();
            assertThat(afterWrite).as("the write's reply carried operationTime").isNotNull();

            assertThat(c.find(session, Filters.eq("_id", 1)).first()).isNotNull();
            assertThat(c.aggregate(session, List.of(Aggregates.match(Filters.eq("_id", 1)))).first()).isNotNull();

            assertThat(sent).hasSize(2);
            for (BsonDocument command : sent) {
                BsonDocument readConcern = command.getDocument("readConcern");
                assertThat(readConcern.getString("level").getValue()).isEqualTo("majority");
                assertThat(readConcern.getTimestamp("afterClusterTime")).isGreaterThanOrEqualTo(afterWrite);
            }
        }
    }

    @Test
    void anAfterClusterTimeBeyondTheServersTimeIsRefusedAndAStandaloneRefusesItAltogether() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        MongoDatabase db = mongo.client().getDatabase("causal");
        db.getCollection("c").insertOne(new Document("_id", 1));
        BsonTimestamp now = new BsonTimestamp((int) Instant.now().getEpochSecond(), 0);
        Document ok = db.runCommand(new Document("find", "c").append("readConcern",
                new Document("level", "majority").append("afterClusterTime", now)));
        assertThat(ok.get("ok", Number.class).intValue()).isEqualTo(1);
        assertThat(ok.get("operationTime")).isNotNull();

        BsonTimestamp future = new BsonTimestamp((int) Instant.now().plusSeconds(3600).getEpochSecond(), 0);
        assertThatThrownBy(() -> db.runCommand(new Document("find", "c").append("readConcern",
                new Document("level", "majority").append("afterClusterTime", future))))
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(72));
        mongo.close();

        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), false);
        MongoDatabase standalone = mongo.client().getDatabase("causal");
        assertThat(standalone.getCollection("c").withReadConcern(ReadConcern.MAJORITY).find().into(new ArrayList<>())).isEmpty();
        assertThatThrownBy(() -> standalone.runCommand(new Document("find", "c").append("readConcern",
                new Document("level", "majority").append("afterClusterTime", now))))
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(72));
    }
}
