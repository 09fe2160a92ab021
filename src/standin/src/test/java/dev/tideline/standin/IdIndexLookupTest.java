package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.DeleteManyModel;
import com.mongodb.client.model.DeleteOneModel;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndReplaceOptions;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateManyModel;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An equality on {@code _id}, in every form MongoDB answers from its {@code _id} index, examines only the documents
 * with those {@code _id}s (MongoDB's {@code docsExamined}, https://www.mongodb.com/docs/manual/reference/explain-results/),
 * for every operation that takes a filter; a scan examines the whole collection and fails these tests. The
 * results are those of MongoDB: the rest of the filter still decides.
 */
class IdIndexLookupTest {
    private static final int DOCUMENTS = 1_000;

    private AwaitingMemoryBackend backend;
    private MongoFixture mongo;
    private MongoCollection<Document> c;

    @BeforeEach
    void start() {
        backend = new AwaitingMemoryBackend();
        mongo = MongoFixture.inProcess(backend, true);
        c = mongo.client().getDatabase("lookup").getCollection("docs");
        List<Document> documents = new ArrayList<>();
        IntStream.range(0, DOCUMENTS).forEach(i -> documents.add(new Document("_id", i).append("shard", i % 10).append("v", 0)));
        c.insertMany(documents);
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    /** Filters matching exactly document 5 (shard 5), each an equality on {@code _id}. */
    static Stream<Arguments> idEqualities() {
        return Stream.of(
                Arguments.of("{_id: v}", BsonDocument.parse("{_id: 5}")),
                Arguments.of("{_id: {$eq: v}}", BsonDocument.parse("{_id: {$eq: 5}}")),
                Arguments.of("{_id: {$in: [...]}}", BsonDocument.parse("{_id: {$in: [5, 5000]}}")),
                Arguments.of("shard key beside _id", BsonDocument.parse("{shard: 5, _id: 5}")),
                Arguments.of("shard key beside $eq", BsonDocument.parse("{shard: {$eq: 5}, _id: {$eq: 5}}")),
                Arguments.of("inside $and", BsonDocument.parse("{$and: [{shard: 5}, {_id: {$eq: 5}}]}")),
                Arguments.of("inside nested $and", BsonDocument.parse("{$and: [{$and: [{_id: 5}]}, {shard: {$gte: 0}}]}")),
                Arguments.of("$eq beside another operator", BsonDocument.parse("{_id: {$eq: 5, $ne: 6}}")));
    }

    /** What each operation does to the one matching document, and how many it reports. */
    static Stream<Arguments> operations() {
        List<Arguments> all = new ArrayList<>();
        List<Arguments> forms = idEqualities().toList();
        List<Operation> operations = List.of(
                new Operation("find", (c, f) -> (long) c.find(f).into(new ArrayList<>()).size()),
                new Operation("countDocuments", MongoCollection::countDocuments),
                new Operation("aggregate", (c, f) -> (long) c.aggregate(List.of(Aggregates.match(f), Aggregates.project(
                        Projections.include("v")))).into(new ArrayList<>()).size()),
                new Operation("updateOne", (c, f) -> c.updateOne(f, Updates.set("v", 1)).getModifiedCount()),
                new Operation("updateOne upsert", (c, f) -> c.updateOne(f, Updates.set("v", 1), new UpdateOptions().upsert(true))
                        .getModifiedCount()),
                new Operation("updateMany", (c, f) -> c.updateMany(f, Updates.set("v", 1)).getModifiedCount()),
                new Operation("updateMany upsert", (c, f) -> c.updateMany(f, Updates.set("v", 1), new UpdateOptions().upsert(true))
                        .getModifiedCount()),
                new Operation("replaceOne", (c, f) -> c.replaceOne(f, new Document("shard", 5).append("v", 1)).getModifiedCount()),
                new Operation("replaceOne upsert", (c, f) -> c.replaceOne(f, new Document("shard", 5).append("v", 1),
                        new ReplaceOptions().upsert(true)).getModifiedCount()),
                new Operation("deleteOne", (c, f) -> c.deleteOne(f).getDeletedCount()),
                new Operation("deleteMany", (c, f) -> c.deleteMany(f).getDeletedCount()),
                new Operation("bulkWrite", (c, f) -> {
                    var result = c.bulkWrite(List.of(new UpdateOneModel<>(f, Updates.set("v", 1), new UpdateOptions().upsert(true)),
                            new UpdateManyModel<>(f, Updates.inc("n", 1)),
                            new ReplaceOneModel<>(f, new Document("shard", 5).append("v", 2), new ReplaceOptions().upsert(true)),
                            new DeleteOneModel<>(f), new DeleteManyModel<>(f)));
                    return (long) result.getDeletedCount();
                }),
                new Operation("findOneAndUpdate", (c, f) -> c.findOneAndUpdate(f, Updates.set("v", 1),
                        new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER)).getInteger("v").longValue()),
                new Operation("findOneAndReplace", (c, f) -> c.findOneAndReplace(f, new Document("shard", 5).append("v", 1),
                        new FindOneAndReplaceOptions().upsert(true).returnDocument(ReturnDocument.AFTER)).getInteger("v").longValue()),
                new Operation("findOneAndDelete", (c, f) -> c.findOneAndDelete(f) == null ? 0L : 1L));
        for (Arguments form : forms) {
            for (Operation operation : operations) {
                all.add(Arguments.of(form.get()[0], form.get()[1], operation));
            }
        }
        return all.stream();
    }

    record Operation(String name, java.util.function.BiFunction<MongoCollection<Document>, Bson, Long> run) {
        @Override
        public String toString() {
            return name;
        }
    }

    @ParameterizedTest(name = "{2} with {0}")
    @MethodSource("operations")
    void everyOperationWithAnIdEqualityExaminesOnlyThatDocument(String form, Bson filter, Operation operation) {
        long before = backend.documentsExamined();
        long reported = operation.run().apply(c, filter);
        long examined = backend.documentsExamined() - before;

        assertThat(reported).as("%s with %s acted on the one matching document", operation, form).isEqualTo(1);
        // bulkWrite runs five statements on the same document; any other operation one lookup (a findAndModify's
        // modify step looks it up again)
        assertThat(examined).as("%s with %s: documents examined of %d (a scan examines them all)", operation, form, DOCUMENTS)
                .isBetween(1L, 5L);
        assertThat(c.countDocuments()).as("no document added or lost but the one deleted")
                .isIn((long) DOCUMENTS, (long) DOCUMENTS - 1);
    }

    @Test
    void theRestOfTheFilterStillDecidesAndAnUpsertTakesTheIdFromTheEquality() {
        long before = backend.documentsExamined();
        assertThat(c.find(BsonDocument.parse("{_id: 5, shard: 6}")).first()).as("a shard key that differs").isNull();
        assertThat(c.find(BsonDocument.parse("{$and: [{_id: {$in: [5, 6]}}, {shard: 6}]}")).into(new ArrayList<>()))
                .extracting(d -> d.get("_id")).containsExactly(6);
        assertThat(c.updateOne(BsonDocument.parse("{_id: {$eq: 7}, v: 9}"), Updates.set("v", 1)).getMatchedCount()).isZero();
        assertThat(c.deleteMany(BsonDocument.parse("{_id: {$in: [1, 2, 3]}, shard: {$ne: 2}}")).getDeletedCount()).isEqualTo(2);
        assertThat(backend.documentsExamined() - before).as("only the documents with those _ids").isEqualTo(1 + 2 + 1 + 3);

        before = backend.documentsExamined();
        c.updateOne(BsonDocument.parse("{_id: {$eq: 'new'}, shard: 3}"), Updates.set("v", 1), new UpdateOptions().upsert(true));
        c.updateOne(BsonDocument.parse("{$and: [{_id: 'and'}, {shard: 4}]}"), Updates.set("v", 1), new UpdateOptions().upsert(true));
        c.replaceOne(Filters.and(Filters.eq("_id", "replaced"), Filters.eq("shard", 2)), new Document("v", 1),
                new ReplaceOptions().upsert(true));
        assertThat(backend.documentsExamined() - before).as("an upsert that matches nothing examines nothing").isZero();
        // the upserted document holds the filter's equality fields (https://www.mongodb.com/docs/manual/reference/method/db.collection.updateOne/#upsert)
        assertThat(c.find(Filters.eq("_id", "new")).first()).isEqualTo(new Document("_id", "new").append("shard", 3).append("v", 1));
        assertThat(c.find(Filters.eq("_id", "and")).first()).isEqualTo(new Document("_id", "and").append("shard", 4).append("v", 1));
        assertThat(c.find(Filters.eq("_id", "replaced")).first()).isEqualTo(new Document("_id", "replaced").append("v", 1));
    }

    /**
     * A pipeline after a leading {@code $match} on {@code _id} runs on the documents the index found, with the answer
     * of the scan; a result larger than the first batch goes through a cursor as before.
     */
    @Test
    void anAggregateAfterAnIdMatchAnswersAsTheScanDid() {
        long before = backend.documentsExamined();
        List<Document> grouped = c.aggregate(List.of(Aggregates.match(BsonDocument.parse("{_id: {$in: [1, 2, 11, 5000]}}")),
                Aggregates.group("$shard", com.mongodb.client.model.Accumulators.sum("n", 1)), Aggregates.sort(new Document("_id", 1))))
                .into(new ArrayList<>());
        assertThat(grouped).containsExactly(new Document("_id", 1).append("n", 2), new Document("_id", 2).append("n", 1));
        assertThat(c.countDocuments(BsonDocument.parse("{_id: {$eq: 3}, shard: 4}"))).as("the rest of the filter decides").isZero();
        assertThat(backend.documentsExamined() - before).isEqualTo(3 + 1);

        List<Integer> many = IntStream.range(0, 300).boxed().toList();
        before = backend.documentsExamined();
        assertThat(c.aggregate(List.of(Aggregates.match(Filters.in("_id", many)))).batchSize(50).into(new ArrayList<>()))
                .hasSize(300);
        assertThat(backend.documentsExamined() - before).as("more than a batch: read by the generic path, a scan")
                .isGreaterThanOrEqualTo(300);
    }

    @Test
    void numbersAndDocumentsCompareAsTheMatcherComparesThem() {
        c.insertOne(new Document("_id", new Document("a", 1).append("b", 2)));
        long before = backend.documentsExamined();
        assertThat(c.find(BsonDocument.parse("{_id: {$eq: 5.0}}")).first()).isNotNull();
        assertThat(c.find(BsonDocument.parse("{_id: {$in: [{$numberLong: '5'}]}}")).first()).isNotNull();
        assertThat(c.find(BsonDocument.parse("{_id: {$eq: {a: 1.0, b: 2}}}")).first()).as("numbers inside by value").isNotNull();
        assertThat(c.find(BsonDocument.parse("{_id: {b: 2, a: 1}}")).first()).as("field order counts").isNull();
        assertThat(backend.documentsExamined() - before).isLessThanOrEqualTo(4);
    }

    /**
     * A filter on fields without an index is a collection scan on MongoDB too (COLLSCAN, every document examined):
     * the counter sees it. (Ranges and {@code $or} on {@code _id}, which MongoDB answers from the index, are still
     * scans here: docs/mongodb-stand-in.md.)
     */
    @Test
    void aScanExaminesEveryDocument() {
        List<java.util.Map.Entry<Long, java.util.function.Supplier<Long>>> scans = List.of(
                java.util.Map.entry(100L, () -> (long) c.find(Filters.eq("shard", 5)).into(new ArrayList<>()).size()),
                java.util.Map.entry(1000L, () -> c.updateMany(Filters.eq("v", 0), Updates.set("w", 1)).getModifiedCount()),
                java.util.Map.entry(100L, () -> c.countDocuments(Filters.eq("shard", 7))),
                java.util.Map.entry(100L, () -> c.deleteMany(Filters.eq("shard", 6)).getDeletedCount()));
        long documents = DOCUMENTS;
        for (var scan : scans) {
            long before = backend.documentsExamined();
            assertThat(scan.getValue().get()).isEqualTo(scan.getKey());
            assertThat(backend.documentsExamined() - before).isEqualTo(documents);
        }
    }
}
