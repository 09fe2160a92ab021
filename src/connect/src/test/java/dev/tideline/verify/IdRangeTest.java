package dev.tideline.verify;

import dev.tideline.mongo.BsonOrder;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import de.bwaldvogel.mongo.MongoServer;
import dev.tideline.standin.AwaitingMemoryBackend;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class IdRangeTest {
    @Test
    void boundsAreTypeBracketAware() {
        assertThat(IdRange.ALL.filter()).isEqualTo(new BsonDocument());
        assertThat(new IdRange(new BsonInt32(5), null).filter().toJson()).isEqualTo("{\"$or\": [{\"_id\": {\"$gt\": 5}}, "
                + "{\"_id\": {\"$type\": [\"string\", \"symbol\", \"object\", \"array\", \"binData\", \"objectId\", \"bool\", \"date\", "
                + "\"timestamp\", \"regex\", \"dbPointer\", \"javascript\", \"javascriptWithScope\", \"maxKey\"]}}]}");
        assertThat(new IdRange(null, new BsonString("k")).filter().toJson()).isEqualTo("{\"$or\": [{\"_id\": {\"$lte\": \"k\"}}, "
                + "{\"_id\": {\"$type\": [\"minKey\", \"undefined\", \"null\", \"int\", \"long\", \"double\", \"decimal\"]}}]}");
        assertThat(new IdRange(new BsonInt32(1), new BsonInt32(9)).filter().getArray("$and")).hasSize(2);
    }

    @Test
    void containsFollowsIdOrder() {
        IdRange r = new IdRange(new BsonInt32(5), new BsonString("k"));
        assertThat(r.contains(new BsonInt32(5))).isFalse();
        assertThat(r.contains(new BsonInt32(6))).isTrue();
        assertThat(r.contains(new BsonString("a"))).isTrue();
        assertThat(r.contains(new BsonString("k"))).isTrue();
        assertThat(r.contains(new BsonString("l"))).isFalse();
    }

    /** The filter selects exactly what {@link IdRange#contains} says, on a collection with ids of every bracket. */
    @Test
    void filterSelectsTheRangeOnAServer() {
        MongoServer server = new MongoServer(new AwaitingMemoryBackend());
        server.bind("127.0.0.1", 0);
        try (MongoClient client = MongoClients.create("mongodb://127.0.0.1:" + server.getLocalAddress().getPort())) {
            MongoCollection<BsonDocument> coll = client.getDatabase("t").getCollection("ids", BsonDocument.class);
            List<BsonValue> ids = new ArrayList<>();
            for (BsonValue v : dev.tideline.mongo.BsonOrderTest.ONE_PER_BRACKET) {
                // MongoDB refuses arrays, regexes and undefined as _id; the stand-in keeps the other deprecated types as
                // binary data and refuses a $type query on a field holding them (DeprecatedTypeAliases)
                if (!v.isArray() && !v.isRegularExpression() && !List.of(BsonType.UNDEFINED, BsonType.SYMBOL, BsonType.DB_POINTER,
                        BsonType.JAVASCRIPT, BsonType.JAVASCRIPT_WITH_SCOPE).contains(v.getBsonType())) {
                    ids.add(v);
                }
            }
            ids.add(new BsonInt32(7));
            ids.add(new BsonString("z"));
            ids.forEach(id -> coll.insertOne(new BsonDocument("_id", id)));
            ids.sort(BsonOrder.COMPARATOR);
            for (int lo = -1; lo < ids.size(); lo++) {
                for (int hi = Math.max(lo, 0); hi <= ids.size(); hi++) {
                    IdRange range = new IdRange(lo < 0 ? null : ids.get(lo), hi >= ids.size() ? null : ids.get(hi));
                    List<BsonValue> expected = ids.stream().filter(range::contains).toList();
                    List<BsonValue> found = coll.find(range.filter()).map(d -> d.get("_id")).into(new ArrayList<>());
                    found.sort(BsonOrder.COMPARATOR);
                    assertThat(found).as("range %s", range).containsExactlyElementsOf(expected);
                }
            }
        } finally {
            server.shutdownNow();
        }
    }
}
