package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Updates;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code collStats}'s {@code size} and {@code avgObjSize} are the BSON sizes of the documents the collection holds
 * (https://www.mongodb.com/docs/manual/reference/command/collStats/), after inserts, upserts, updates that grow or
 * shrink a document, and deletes; the stand-in counts them when asked instead of encoding every written document.
 */
class CollectionDataSizeTest {
    private MongoFixture mongo;
    private MongoCollection<Document> c;

    @BeforeEach
    void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        c = mongo.client().getDatabase("sizes").getCollection("docs");
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    @Test
    void sizeIsTheSumOfTheStoredDocumentsBsonSizes() {
        List<Document> docs = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            docs.add(new Document("_id", i).append("name", "n" + i).append("tags", List.of("a", "bc", i)));
        }
        c.insertMany(docs);
        assertSizeMatchesStoredDocuments(50);

        c.updateOne(Filters.eq("_id", 3), Updates.set("pad", "x".repeat(5_000)));
        c.updateOne(Filters.eq("_id", 4), Updates.unset("tags"));
        c.replaceOne(Filters.eq("_id", 60), new Document("_id", 60).append("nested", new Document("d", 1.5)),
                new ReplaceOptions().upsert(true));
        c.deleteOne(Filters.eq("_id", 7));
        c.deleteMany(Filters.lt("_id", 2));
        assertSizeMatchesStoredDocuments(48);

        c.deleteMany(new Document());
        assertSizeMatchesStoredDocuments(0);
    }

    private void assertSizeMatchesStoredDocuments(int count) {
        long expected = 0;
        int n = 0;
        for (RawBsonDocument d : c.withDocumentClass(RawBsonDocument.class).find()) {
            expected += d.getByteBuffer().remaining();
            n++;
        }
        assertThat(n).isEqualTo(count);
        Document stats = mongo.client().getDatabase("sizes").runCommand(new BsonDocument("collStats", new org.bson.BsonString("docs")));
        assertThat(((Number) stats.get("count")).longValue()).isEqualTo(count);
        assertThat(((Number) stats.get("size")).longValue()).as("size, stats %s", stats).isEqualTo(expected);
        if (count > 0) {
            assertThat(((Number) stats.get("avgObjSize")).longValue()).isEqualTo(expected / count); // an integer, as MongoDB reports it
        }
    }
}
