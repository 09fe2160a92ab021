package dev.tideline.health;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class StatusDocumentWriterTest {
    @Test
    void replacesTheDocumentByIdAndReportsAFailureWithoutThrowing() {
        try (MongoFixture mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), false)) {
            MongoCollection<BsonDocument> coll = mongo.client().getDatabase("h").getCollection("_tideline_state", BsonDocument.class);
            StatusDocumentWriter writer = new StatusDocumentWriter(coll, "a test status");
            assertThat(writer.write(BsonDocument.parse("{_id: 't/0', health: 'ok'}"))).isTrue();
            assertThat(writer.write(BsonDocument.parse("{_id: 't/0', health: 'degraded'}"))).isTrue();
            assertThat(coll.find().into(new java.util.ArrayList<>())).containsExactly(BsonDocument.parse("{_id: 't/0', health: 'degraded'}"));

            MongoClient closed = mongo.client();
            MongoCollection<BsonDocument> gone = closed.getDatabase("h").getCollection("_tideline_state", BsonDocument.class);
            closed.close();
            StatusDocumentWriter failing = new StatusDocumentWriter(gone, "a test status");
            assertThat(failing.write(BsonDocument.parse("{_id: 't/0'}"))).isFalse(); // a closed client: reported, not thrown
            assertThat(failing.write(BsonDocument.parse("{_id: 't/0'}"))).isFalse();
        }
    }
}
