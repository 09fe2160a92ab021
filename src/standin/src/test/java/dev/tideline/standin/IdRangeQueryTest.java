package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item: a query on an {@code _id} range sorted by {@code _id} is answered from the ordered {@code _id} index, as
 * MongoDB answers it (an IXSCAN from the range's start; skip and limit end the walk), and counts the keys it walks
 * as MongoDB's {@code keysExamined} does, skipped keys included
 * (https://www.mongodb.com/docs/manual/reference/explain-results/#mongodb-data-explain.executionStats.totalKeysExamined).
 * Range operators keep to one BSON type (type bracketing,
 * https://www.mongodb.com/docs/manual/reference/method/db.collection.find/#type-bracketing).
 */
class IdRangeQueryTest {
    private AwaitingMemoryBackend backend;
    private MongoFixture mongo;
    private MongoCollection<Document> c;

    @BeforeEach
    void start() {
        backend = new AwaitingMemoryBackend();
        mongo = MongoFixture.inProcess(backend, true);
        c = mongo.client().getDatabase("ranges").getCollection("docs");
        List<Document> docs = new ArrayList<>();
        for (int i = 999; i >= 0; i--) {
            docs.add(new Document("_id", i).append("v", "n" + i));
        }
        docs.add(new Document("_id", "a"));
        docs.add(new Document("_id", "b"));
        c.insertMany(docs);
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    private List<Object> ids(Bson filter, Bson sort, int skip, int limit) {
        List<Object> out = new ArrayList<>();
        c.find(filter).sort(sort).skip(skip).limit(limit).projection(Projections.include("_id")).forEach(d -> out.add(d.get("_id")));
        return out;
    }

    @Test
    void aRangeWalksTheIndexFromItsStartAndCountsTheKeysItWalks() {
        long before = backend.indexKeysExamined();
        assertThat(ids(Filters.gt("_id", 499), Sorts.ascending("_id"), 9, 1)).containsExactly(509);
        long walked = backend.indexKeysExamined() - before;
        assertThat(walked).as("the 9 skipped keys and the one returned, from the range's start").isBetween(10L, 11L);

        before = backend.indexKeysExamined();
        assertThat(ids(new Document(), Sorts.ascending("_id"), 500, 1)).containsExactly(500);
        assertThat(backend.indexKeysExamined() - before).as("from the index's start").isBetween(501L, 502L);
    }

    @Test
    void rangesKeepToOneTypeAndBoundsCombineAsMongoDbDoes() {
        assertThat(ids(Filters.gte("_id", 998), Sorts.ascending("_id"), 0, 0)).as("numbers only, not the strings after them")
                .containsExactly(998, 999);
        assertThat(ids(Filters.lt("_id", "b"), Sorts.ascending("_id"), 0, 0)).containsExactly("a");
        assertThat(ids(Filters.and(Filters.gt("_id", 3), Filters.gte("_id", 5), Filters.lte("_id", 7)), Sorts.ascending("_id"), 0, 0))
                .containsExactly(5, 6, 7);
        assertThat(ids(Filters.and(Filters.gt("_id", 7), Filters.lt("_id", 3)), Sorts.ascending("_id"), 0, 0)).isEmpty();
        assertThat(ids(Filters.lt("_id", 3), Sorts.descending("_id"), 1, 5)).containsExactly(1, 0);
        assertThat(ids(new Document(), Sorts.descending("_id"), 0, 3)).containsExactly("b", "a", 999);
        c.deleteOne(Filters.eq("_id", 6));
        assertThat(ids(Filters.gte("_id", 5), Sorts.ascending("_id"), 0, 3)).as("a deleted id leaves the index").containsExactly(5, 7, 8);
        c.insertOne(new Document("_id", 6.5));
        assertThat(ids(Filters.gte("_id", 5), Sorts.ascending("_id"), 0, 3)).as("numbers of any type in one order").containsExactly(5, 6.5, 7);
    }

    @Test
    void otherQueriesAreAnsweredAsBefore() {
        long before = backend.indexKeysExamined();
        assertThat(ids(Filters.eq("v", "n5"), Sorts.ascending("_id"), 0, 0)).containsExactly(5);
        assertThat(ids(Filters.gt("_id", 997), Sorts.ascending("v"), 0, 0)).containsExactly(998, 999);
        assertThat(backend.indexKeysExamined()).isEqualTo(before);
    }
}
