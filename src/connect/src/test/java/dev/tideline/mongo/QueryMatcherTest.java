package dev.tideline.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class QueryMatcherTest {
    private static boolean matches(String filter, String doc) {
        BsonDocument f = BsonDocument.parse(filter);
        assertThat(QueryMatcher.evaluable(f)).as("evaluable: " + filter).isTrue();
        return QueryMatcher.matches(f, BsonDocument.parse(doc));
    }

    @Test
    void equalityAsMongoDbMeansIt() {
        assertThat(matches("{keep: true}", "{_id: 1, keep: true}")).isTrue();
        assertThat(matches("{keep: true}", "{_id: 1, keep: false}")).isFalse();
        assertThat(matches("{keep: true}", "{_id: 1}")).isFalse();
        assertThat(matches("{n: 1}", "{n: 1.0}")).isTrue(); // numbers compare by value across types
        assertThat(matches("{n: 1}", "{n: '1'}")).isFalse();
        assertThat(matches("{tags: 'a'}", "{tags: ['b', 'a']}")).isTrue(); // an array element
        assertThat(matches("{tags: ['b', 'a']}", "{tags: ['b', 'a']}")).isTrue(); // the array itself
        assertThat(matches("{'a.b': 2}", "{a: [{b: 1}, {b: 2}]}")).isTrue(); // through an array of documents
        assertThat(matches("{'a.1': 'y'}", "{a: ['x', 'y']}")).isTrue(); // by index
        assertThat(matches("{x: null}", "{_id: 1}")).isTrue(); // null equals missing
        assertThat(matches("{x: {$ne: null}}", "{_id: 1}")).isFalse();
        assertThat(matches("{d: {a: 1, b: 2}}", "{d: {b: 2, a: 1}}")).isFalse(); // embedded documents: field order counts
    }

    @Test
    void comparisonsHoldWithinOneTypeBracket() {
        assertThat(matches("{n: {$gt: 5}}", "{n: 7}")).isTrue();
        assertThat(matches("{n: {$gt: 5}}", "{n: 'z'}")).isFalse();
        assertThat(matches("{n: {$gte: 5, $lt: 6}}", "{n: 5}")).isTrue();
        assertThat(matches("{n: {$gte: 5, $lt: 6}}", "{n: 6}")).isFalse();
        assertThat(matches("{n: {$lte: 2}}", "{n: [9, 1]}")).isTrue();
        assertThat(matches("{s: {$in: ['a', 'b']}}", "{s: 'b'}")).isTrue();
        assertThat(matches("{s: {$nin: ['a', 'b']}}", "{s: 'b'}")).isFalse();
        assertThat(matches("{s: {$nin: ['a', 'b']}}", "{_id: 1}")).isTrue();
        assertThat(matches("{s: {$exists: true}}", "{_id: 1}")).isFalse();
        assertThat(matches("{s: {$exists: false}}", "{_id: 1}")).isTrue();
        assertThat(matches("{n: {$not: {$gt: 5}}}", "{n: 3}")).isTrue();
        assertThat(matches("{n: {$not: {$gt: 5}}}", "{_id: 1}")).isTrue();
    }

    @Test
    void logicalOperators() {
        assertThat(matches("{$or: [{a: 1}, {b: 1}]}", "{b: 1}")).isTrue();
        assertThat(matches("{$and: [{a: 1}, {b: 1}]}", "{b: 1}")).isFalse();
        assertThat(matches("{$nor: [{a: 1}, {b: 1}]}", "{c: 1}")).isTrue();
        assertThat(matches("{status: {$ne: 'draft'}, $or: [{a: 1}]}", "{status: 'open', a: 1}")).isTrue();
    }

    @Test
    void operatorsItCannotJudgeAreLeftToTheServer() {
        for (String f : new String[] {"{a: {$regex: 'x'}}", "{a: /x/}", "{a: {$elemMatch: {b: 1}}}", "{a: {$type: 'string'}}",
                "{a: {$in: [/x/]}}", "{$or: [{a: {$size: 2}}]}", "{a: {$not: /x/}}", "{$expr: {$eq: ['$a', 1]}}"}) {
            assertThat(QueryMatcher.evaluable(BsonDocument.parse(f))).as(f).isFalse();
        }
    }
}
