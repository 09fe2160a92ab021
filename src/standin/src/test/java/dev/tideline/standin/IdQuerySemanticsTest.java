package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.bson.BsonDocument;
import org.bson.BsonRegularExpression;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item: filters on {@code _id} mean what they mean on MongoDB
 * (https://www.mongodb.com/docs/manual/tutorial/query-documents/, https://www.mongodb.com/docs/manual/reference/operator/query/eq/):
 * a document whose first key starts with {@code $} is an operator expression, a regex value is a pattern
 * match, {@code $eq} with a document matches that document by value (field order included). A sink that
 * put a record's key into a filter unchecked would therefore be caught by these servers, as on MongoDB;
 * and an {@code _id} that is an array, a regex or holds {@code $}-prefixed fields is refused as MongoDB
 * refuses it (https://www.mongodb.com/docs/manual/core/document/#field-names).
 */
class IdQuerySemanticsTest {
    private MongoFixture mongo;
    private MongoCollection<Document> c;

    @BeforeEach
    void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        c = mongo.client().getDatabase("ids").getCollection("docs");
        c.insertMany(List.of(new Document("_id", "a1"), new Document("_id", "a2"), new Document("_id", "b1"),
                new Document("_id", new Document("k", 1).append("j", 2)).append("order", "kj"),
                new Document("_id", new Document("j", 2).append("k", 1)).append("order", "jk"),
                new Document("_id", 7)));
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    private List<Object> ids(org.bson.conversions.Bson filter) {
        List<Object> out = new ArrayList<>();
        c.find(filter).forEach(d -> out.add(d.get("_id")));
        return out;
    }

    @Test
    void anOperatorDocumentIsAnOperatorNotALiteralId() {
        assertThat(ids(BsonDocument.parse("{_id: {$exists: true}}"))).hasSize(6);
        assertThat(ids(BsonDocument.parse("{_id: {$gt: 'a'}}"))).containsExactlyInAnyOrder("a1", "a2", "b1");
        assertThat(ids(BsonDocument.parse("{_id: {$ne: 'zzz'}}"))).hasSize(6);
        assertThat(c.deleteOne(BsonDocument.parse("{_id: {$exists: true}}")).getDeletedCount())
                .as("one tombstone with such a key deletes an arbitrary document").isEqualTo(1);
        assertThat(c.countDocuments()).isEqualTo(5);
    }

    @Test
    void aRegexIsAPatternMatch() {
        assertThat(ids(Filters.regex("_id", "^a"))).containsExactlyInAnyOrder("a1", "a2");
        assertThat(ids(new Document("_id", Pattern.compile("1$")))).containsExactlyInAnyOrder("a1", "b1");
        assertThat(c.updateMany(new Document("_id", new BsonRegularExpression("^b")), Updates.set("hit", true)).getModifiedCount())
                .isEqualTo(1);
        assertThat(c.find(Filters.eq("hit", true)).first().get("_id")).isEqualTo("b1");
    }

    @Test
    void eqWithADocumentMatchesThatDocumentByValueFieldOrderIncluded() {
        Document kj = new Document("k", 1).append("j", 2);
        assertThat(ids(new Document("_id", new Document("$eq", kj)))).containsExactly(kj);
        assertThat(ids(new Document("_id", kj))).containsExactly(kj);
        assertThat(c.find(new Document("_id", new Document("$eq", new Document("j", 2).append("k", 1)))).first().getString("order"))
                .isEqualTo("jk");
        assertThat(ids(new Document("_id", new Document("$eq", new Document("$exists", true)))))
                .as("$eq makes a $ document a value to compare, not an operator").isEmpty();
        assertThat(ids(new Document("_id", new Document("$in", List.of(kj, "a1"))))).containsExactlyInAnyOrder(kj, "a1");
        assertThat(ids(new Document("_id", new Document("$eq", 7L)))).as("numbers compare by value").containsExactly(7);
    }

    @Test
    void idsThatAreArraysRegexesOrHoldDollarFieldsAreRefused() {
        assertThatThrownBy(() -> c.insertOne(new Document("_id", List.of(1, 2))))
                .isInstanceOfSatisfying(MongoWriteException.class, e -> assertThat(e.getCode()).isEqualTo(53));
        assertThatThrownBy(() -> c.insertOne(new Document("_id", new BsonRegularExpression("^a"))))
                .isInstanceOfSatisfying(MongoWriteException.class, e -> assertThat(e.getCode()).isEqualTo(2));
        assertThatThrownBy(() -> c.insertOne(new Document("_id", new Document("$exists", true))))
                .isInstanceOfSatisfying(MongoWriteException.class, e -> assertThat(e.getCode()).isEqualTo(52));
        assertThatThrownBy(() -> c.replaceOne(Filters.eq("name", "none"), new Document("_id", new Document("x", new Document("$gt", 1))),
                new com.mongodb.client.model.ReplaceOptions().upsert(true)))
                .isInstanceOfSatisfying(MongoWriteException.class, e -> assertThat(e.getCode()).isEqualTo(52));
        assertThat(c.countDocuments()).isEqualTo(6);
    }

    @Test
    void eqOnIdIsAnIndexLookupWithTheSameMeaning() {
        // numbers compare by value, a document by value with its field order, a regex or an operator literally
        assertThat(ids(BsonDocument.parse("{_id: {$eq: 7}}"))).containsExactly(7);
        assertThat(ids(BsonDocument.parse("{_id: {$eq: {$numberLong: '7'}}}"))).containsExactly(7);
        assertThat(ids(BsonDocument.parse("{_id: {$eq: 7.0}}"))).containsExactly(7);
        assertThat(ids(BsonDocument.parse("{_id: {$eq: {k: 1, j: 2}}}"))).hasSize(1);
        assertThat(ids(BsonDocument.parse("{_id: {$eq: {$exists: true}}}"))).isEmpty();
        assertThat(ids(new BsonDocument("_id", new BsonDocument("$eq", new BsonRegularExpression("^a"))))).isEmpty();
        assertThat(ids(BsonDocument.parse("{_id: {$eq: ['a1']}}"))).isEmpty();
        c.updateOne(BsonDocument.parse("{_id: {$eq: 'a2'}}"), Updates.set("x", 1));
        c.deleteOne(BsonDocument.parse("{_id: {$eq: 'a1'}}"));
        assertThat(ids(BsonDocument.parse("{x: 1}"))).containsExactly("a2");
        assertThat(ids(BsonDocument.parse("{_id: {$eq: 'a1'}}"))).isEmpty();
    }
}
