package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class IdOrderTest {
    /** Ids in MongoDB's sort order: numbers (across int/long/double), strings, ObjectIds, booleans, dates. */
    private static final List<BsonValue> ORDERED = List.of(
            new BsonDouble(-1.5), new BsonInt32(1), new BsonInt64(2L), new BsonDouble(2.5), new BsonInt32(3),
            new BsonInt64(10L), new BsonDouble(1e10),
            new BsonString(""), new BsonString("A"), new BsonString("a"), new BsonString("b"), new BsonString("z"),
            new BsonObjectId(new ObjectId("000000000000000000000001")), new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")),
            BsonBoolean.FALSE, BsonBoolean.TRUE,
            new BsonDateTime(-1000L), new BsonDateTime(0L), new BsonDateTime(1_714_521_600_000L));

    private static InProcessMongo mongo;
    private static MongoCollection<BsonDocument> coll;

    @BeforeAll
    static void start() {
        mongo = new InProcessMongo();
        coll = mongo.db("idorder").getCollection("mixed", BsonDocument.class);
        List<BsonDocument> docs = new ArrayList<>();
        for (int i = 0; i < ORDERED.size(); i++) {
            docs.add(new BsonDocument("_id", ORDERED.get(i)).append("n", new BsonInt32(i)).append("keep", BsonBoolean.valueOf(i % 4 != 1)));
        }
        Collections.shuffle(docs, new Random(7));
        coll.insertMany(docs);
    }

    @AfterAll
    static void stop() {
        mongo.close();
    }

    private static List<BsonValue> copyInBatches(BsonDocument filter, int batch) {
        List<BsonValue> seen = new ArrayList<>();
        BsonValue last = null;
        for (int round = 0; round < 100; round++) {
            BsonDocument after = IdOrder.after(last);
            List<BsonDocument> page = coll.find(IdOrder.and(filter, after))
                    .sort(new BsonDocument("_id", new BsonInt32(1))).limit(batch).into(new ArrayList<>());
            if (page.isEmpty()) {
                return seen;
            }
            page.forEach(d -> seen.add(d.get("_id")));
            last = page.get(page.size() - 1).get("_id");
        }
        throw new AssertionError("copy did not terminate; seen so far: " + seen);
    }

    @Test
    void serverSortsIdsInMongoOrder() {
        List<BsonValue> sorted = new ArrayList<>();
        coll.find().sort(new BsonDocument("_id", new BsonInt32(1))).forEach(d -> sorted.add(d.get("_id")));
        assertThat(sorted).containsExactlyElementsOf(ORDERED);
    }

    @Test
    void batchedCopyVisitsEveryDocumentOnceInOrder() {
        assertThat(copyInBatches(new BsonDocument(), 3)).containsExactlyElementsOf(ORDERED);
    }

    @Test
    void batchedCopyWithAFilter() {
        List<BsonValue> expected = new ArrayList<>();
        for (int i = 0; i < ORDERED.size(); i++) {
            if (i % 4 != 1) {
                expected.add(ORDERED.get(i));
            }
        }
        assertThat(copyInBatches(new BsonDocument("keep", BsonBoolean.TRUE), 3)).containsExactlyElementsOf(expected);
    }

    @Test
    void afterEachIdFindsExactlyTheLaterOnes() {
        for (int i = 0; i < ORDERED.size(); i++) {
            List<BsonValue> later = new ArrayList<>();
            coll.find(IdOrder.after(ORDERED.get(i))).sort(new BsonDocument("_id", new BsonInt32(1))).forEach(d -> later.add(d.get("_id")));
            assertThat(later).as("after %s", ORDERED.get(i)).containsExactlyElementsOf(ORDERED.subList(i + 1, ORDERED.size()));
        }
    }

    @Test
    void eachRangeFindsExactlyTheIdsBetweenItsBoundsAcrossTypes() {
        for (int i = 0; i < ORDERED.size(); i++) {
            for (int j = i; j < ORDERED.size(); j++) {
                List<BsonValue> found = new ArrayList<>();
                BsonDocument range = IdOrder.and(IdOrder.atOrAfter(ORDERED.get(i)), IdOrder.before(ORDERED.get(j)));
                coll.find(range).sort(new BsonDocument("_id", new BsonInt32(1))).forEach(d -> found.add(d.get("_id")));
                assertThat(found).as("[%s, %s)", ORDERED.get(i), ORDERED.get(j)).containsExactlyElementsOf(ORDERED.subList(i, j));
            }
        }
        assertThat(IdOrder.atOrAfter(null)).isEqualTo(new BsonDocument());
        assertThat(IdOrder.before(null)).isEqualTo(new BsonDocument());
    }

    @Test
    void queryShape() {
        assertThat(IdOrder.after(null)).isEqualTo(new BsonDocument());
        BsonDocument afterDate = IdOrder.after(new BsonDateTime(5L));
        assertThat(afterDate.getArray("$or").get(0)).isEqualTo(BsonDocument.parse("{_id: {$gt: {$date: {$numberLong: '5'}}}}"));
        assertThat(afterDate.getArray("$or").get(1).asDocument().getDocument("_id").getArray("$type"))
                .isEqualTo(new BsonArray(List.of(new BsonString("timestamp"), new BsonString("regex"), new BsonString("dbPointer"),
                        new BsonString("javascript"), new BsonString("javascriptWithScope"), new BsonString("maxKey"))));
        assertThat(IdOrder.after(new org.bson.BsonMaxKey())).isEqualTo(BsonDocument.parse("{_id: {$gt: {$maxKey: 1}}}"));
        BsonDocument a = BsonDocument.parse("{a: 1}");
        assertThat(IdOrder.and(a, new BsonDocument())).isSameAs(a);
        assertThat(IdOrder.and(null, a)).isSameAs(a);
        assertThat(IdOrder.and(a, BsonDocument.parse("{b: 1}"))).isEqualTo(BsonDocument.parse("{$and: [{a: 1}, {b: 1}]}"));
    }
}
