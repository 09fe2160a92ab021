package dev.tideline.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import dev.tideline.standin.MongoFixture;
import java.util.List;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/** A copy's start is its first read of bench.c's documents: not a count, a change stream or another collection. */
class FirstReadBackendTest {
    @Test
    void notesTheFirstFindOrAggregateOfTheDocumentsOnly() {
        FirstReadBackend backend = new FirstReadBackend();
        try (MongoFixture mongo = MongoFixture.inProcess(backend, true)) {
            MongoCollection<Document> coll = mongo.client().getDatabase(ConnectorConfigs.DB).getCollection(ConnectorConfigs.COLL);
            coll.insertOne(new Document("_id", 1));
            coll.estimatedDocumentCount();
            mongo.client().getDatabase(ConnectorConfigs.DB).getCollection("other").find().first();
            coll.watch().cursor().close();
            assertThat(backend.firstReadNanos()).as("no read of the documents yet").isZero();

            long before = System.nanoTime();
            coll.aggregate(List.of(new Document("$match", new Document()))).first();
            long first = backend.firstReadNanos();
            assertThat(first).isBetween(before, System.nanoTime());

            coll.find().first();
            assertThat(backend.firstReadNanos()).as("only the first read counts").isEqualTo(first);
        }
    }

    @Test
    void aFindIsARead() {
        FirstReadBackend backend = new FirstReadBackend();
        try (MongoFixture mongo = MongoFixture.inProcess(backend, false)) {
            mongo.client().getDatabase(ConnectorConfigs.DB).getCollection(ConnectorConfigs.COLL).find().first();
            assertThat(backend.firstReadNanos()).isPositive();
        }
    }
}
