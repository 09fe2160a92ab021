package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoCollection;
import dev.tideline.source.InProcessMongo;
import dev.tideline.mongo.QueryMatcher;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FilterRewriterTest {
    private static InProcessMongo mongo;
    private static MongoCollection<BsonDocument> events;

    @BeforeAll
    static void start() {
        mongo = new InProcessMongo();
        events = mongo.db("filters").getCollection("events", BsonDocument.class);
        events.insertMany(List.of(
                BsonDocument.parse("{_id: 'ins-open-5', operationType: 'insert', fullDocument: {_id: 1, status: 'open', qty: 5, tags: ['x']}}"),
                BsonDocument.parse("{_id: 'ins-open-1', operationType: 'insert', fullDocument: {_id: 2, status: 'open', qty: 1, tags: ['x']}}"),
                BsonDocument.parse("{_id: 'ins-open-1-vip', operationType: 'insert', fullDocument: {_id: 3, status: 'open', qty: 1, tags: ['vip']}}"),
                BsonDocument.parse("{_id: 'upd-draft-9', operationType: 'update', fullDocument: {_id: 4, status: 'draft', qty: 9}}"),
                BsonDocument.parse("{_id: 'upd-open-9', operationType: 'update', fullDocument: {_id: 5, status: 'open', qty: 9}}"),
                BsonDocument.parse("{_id: 'rep-closed-7', operationType: 'replace', fullDocument: {_id: 6, status: 'closed', qty: 7}}"),
                BsonDocument.parse("{_id: 'rep-draft-7', operationType: 'replace', fullDocument: {_id: 7, status: 'draft', qty: 7}}"),
                BsonDocument.parse("{_id: 'upd-gone', operationType: 'update', fullDocument: null}"),
                BsonDocument.parse("{_id: 'del', operationType: 'delete', documentKey: {_id: 4}}"),
                BsonDocument.parse("{_id: 'drop', operationType: 'drop'}"),
                BsonDocument.parse("{_id: 'rename', operationType: 'rename'}"),
                BsonDocument.parse("{_id: 'invalidate', operationType: 'invalidate'}")));
    }

    @AfterAll
    static void stop() {
        mongo.close();
    }

    /** The events the server's stage lets through and the source sends as they are (not as deletes: see {@link #leaving}). */
    private static List<String> passing(BsonDocument filter) {
        List<String> ids = new ArrayList<>();
        through(filter).forEach(d -> {
            if (!leaves(filter, d)) {
                ids.add(d.getString("_id").getValue());
            }
        });
        return ids;
    }

    /** The updates and replaces the server's stage lets through whose document left the filter: the source sends them as deletes. */
    private static List<String> leaving(BsonDocument filter) {
        return through(filter).stream().filter(d -> leaves(filter, d)).map(d -> d.getString("_id").getValue()).toList();
    }

    private static List<BsonDocument> through(BsonDocument filter) {
        List<BsonDocument> out = new ArrayList<>();
        events.aggregate(List.of(FilterRewriter.matchStage(filter))).forEach(out::add);
        return out;
    }

    private static boolean leaves(BsonDocument filter, BsonDocument event) {
        String type = event.getString("operationType").getValue();
        return (type.equals("update") || type.equals("replace")) && event.isDocument("fullDocument")
                && QueryMatcher.evaluable(filter) && !QueryMatcher.matches(filter, event.getDocument("fullDocument"));
    }

    /** Through whatever the filter: deletes and DDL (no document to test), an update whose document is gone (its delete follows). */
    private static final List<String> ALWAYS = List.of("del", "drop", "rename", "invalidate", "upd-gone");

    private static List<String> plusAlways(String... ids) {
        List<String> out = new ArrayList<>(List.of(ids));
        out.addAll(ALWAYS);
        return out;
    }

    @Test
    void fieldConditionsArePrefixed() {
        BsonDocument rewritten = FilterRewriter.rewrite(BsonDocument.parse("{status: {$ne: 'draft'}, 'a.b': 1, qty: {$gte: 5}}"));
        assertThat(rewritten).isEqualTo(BsonDocument.parse(
                "{'fullDocument.status': {$ne: 'draft'}, 'fullDocument.a.b': 1, 'fullDocument.qty': {$gte: 5}}"));
    }

    @Test
    void nestedLogicalOperatorsAreRewritten() {
        BsonDocument rewritten = FilterRewriter.rewrite(BsonDocument.parse(
                "{$and: [{status: 'open'}, {$or: [{qty: {$gt: 3}}, {$nor: [{tags: 'x'}]}]}]}"));
        assertThat(rewritten).isEqualTo(BsonDocument.parse(
                "{$and: [{'fullDocument.status': 'open'}, {$or: [{'fullDocument.qty': {$gt: 3}}, {$nor: [{'fullDocument.tags': 'x'}]}]}]}"));
    }

    @Test
    void emptyFilterHasNoStage() {
        assertThat(FilterRewriter.matchStage(new BsonDocument())).isNull();
        assertThat(FilterRewriter.matchStage(null)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"$expr", "$where", "$text"})
    void unsupportedOperatorsAreRejectedWithAMessage(String op) {
        BsonDocument filter = new BsonDocument(op, BsonDocument.parse("{x: 1}"));
        assertThatThrownBy(() -> FilterRewriter.rewrite(filter)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(op).hasMessageContaining("not supported");
        assertThat(FilterRewriter.problem(filter)).contains(op).contains("not supported");
    }

    @Test
    void unsupportedOperatorNestedInOrIsRejected() {
        BsonDocument filter = BsonDocument.parse("{$or: [{a: 1}, {$where: 'true'}]}");
        assertThat(FilterRewriter.problem(filter)).contains("$where");
    }

    @Test
    void malformedLogicalOperatorsAreRejected() {
        assertThat(FilterRewriter.problem(BsonDocument.parse("{$or: {a: 1}}"))).contains("$or").contains("array");
        assertThat(FilterRewriter.problem(BsonDocument.parse("{$and: [1, 2]}"))).contains("$and").contains("documents");
        assertThat(FilterRewriter.problem(BsonDocument.parse("{status: 'open'}"))).isNull();
    }

    @Test
    void simpleConditionLetsMatchingDocumentsDeletesAndDdlThrough() {
        assertThat(passing(BsonDocument.parse("{status: 'open'}"))).containsExactlyInAnyOrderElementsOf(
                plusAlways("ins-open-5", "ins-open-1", "ins-open-1-vip", "upd-open-9"));
    }

    @Test
    void negativeConditionAlsoPassesAnUpdateWhosePostImageIsGone() {
        // MongoDB semantics: $ne matches a missing field, so an update with fullDocument null passes a $ne filter
        // (as it would on a real server); where the source judges the filter, every update passes anyway (ALWAYS)
        assertThat(passing(BsonDocument.parse("{status: {$ne: 'draft'}}"))).containsExactlyInAnyOrderElementsOf(
                plusAlways("ins-open-5", "ins-open-1", "ins-open-1-vip", "upd-open-9", "rep-closed-7"));
    }

    @Test
    void updatesAndReplacesWhoseDocumentLeftTheFilterComeThroughToBeSentAsDeletes() {
        assertThat(leaving(BsonDocument.parse("{status: 'open'}"))).containsExactlyInAnyOrder("upd-draft-9", "rep-closed-7",
                "rep-draft-7");
        // a filter only the server can judge: they stay out, as before
        assertThat(leaving(BsonDocument.parse("{status: {$regex: '^op'}}"))).isEmpty();
        assertThat(passing(BsonDocument.parse("{status: {$regex: '^op'}}"))).containsExactlyInAnyOrder("ins-open-5", "ins-open-1",
                "ins-open-1-vip", "upd-open-9", "del", "drop", "rename", "invalidate");
    }

    @Test
    void conjunctionOfFieldConditions() {
        assertThat(passing(BsonDocument.parse("{status: 'open', qty: {$gte: 5}}")))
                .containsExactlyInAnyOrderElementsOf(plusAlways("ins-open-5", "upd-open-9"));
    }

    @Test
    void nestedOrAndNor() {
        BsonDocument filter = BsonDocument.parse(
                "{$and: [{status: {$in: ['open', 'closed']}}, {$or: [{qty: {$gte: 7}}, {tags: 'vip'}]}], $nor: [{status: 'closed'}]}");
        assertThat(passing(filter)).containsExactlyInAnyOrderElementsOf(plusAlways("ins-open-1-vip", "upd-open-9"));
    }

    @Test
    void filterMatchingNothingStillPassesDeletesAndDdl() {
        assertThat(passing(BsonDocument.parse("{status: 'nonexistent'}"))).containsExactlyInAnyOrderElementsOf(ALWAYS);
    }
}
