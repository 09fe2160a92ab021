package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * The compiled {@code $match} ({@link EventMatch}) through the driver, on a filter shaped like the source's (an {@code $or}
 * of event types, a rename branch, the collections with a cluster-time bound) followed by the split stage, with
 * updateLookup: an insert, an update and a delete of a listed collection all reach the client. EventMatchTest compares
 * the compiled and the generic matcher event by event.
 */
class EventMatchStreamTest {
    @Test
    void aSourceLikeFilterLetsTheCollectionsEventsThrough() {
        try (MongoFixture mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true)) {
            MongoDatabase db = mongo.client().getDatabase("shop");
            db.getCollection("orders").insertOne(new Document("_id", 0));
            BsonTimestamp bound = new BsonTimestamp((int) (System.currentTimeMillis() / 1000) - 60, 0);
            BsonDocument match = new BsonDocument("$match", new BsonDocument("$or", new BsonArray(List.of(
                    new BsonDocument("operationType", new BsonDocument("$in", new BsonArray(List.of(new BsonString("drop"))))),
                    new BsonDocument("operationType", new BsonString("rename")).append("to.db", new BsonString("shop")),
                    new BsonDocument("ns.coll", new BsonDocument("$in", new BsonArray(List.of(new BsonString("orders"), new BsonString("lines")))))
                            .append("clusterTime", new BsonDocument("$gte", bound))))));
            List<BsonDocument> pipeline = List.of(match, new BsonDocument("$changeStreamSplitLargeEvent", new BsonDocument()));
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> c = db.watch(pipeline).fullDocument(FullDocument.UPDATE_LOOKUP)
                    .maxAwaitTime(200, TimeUnit.MILLISECONDS).cursor()) {
                db.getCollection("orders").insertOne(new Document("_id", 1));
                db.getCollection("orders").updateOne(new Document("_id", 1), new Document("$set", new Document("x", 1)));
                db.getCollection("orders").deleteOne(new Document("_id", 1));
                int n = 0;
                for (int i = 0; i < 30 && n < 3; i++) {
                    if (c.tryNext() != null) {
                        n++;
                    }
                }
                assertThat(n).isEqualTo(3);
            }
        }
    }
}
