package dev.tideline.sink.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.sink.TestRecords;
import dev.tideline.sink.decode.SinkChange;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

/** The filter each write and delete is sent with: _id and the shard key, every value by $eq. */
class WriteFilterTest {
    private static final BsonDocument DOC = BsonDocument.parse("{_id: 1, region: 'eu', customer: {id: 7, tags: [1, 2]}, n: 1}");
    private static final BsonDocument CARRIED = BsonDocument.parse("{region: 'eu', 'customer.id': 7}");

    private static SinkChange write(BsonDocument shardKey) {
        return new SinkChange(TestRecords.record("t", 0, null, null), SinkChange.Kind.WRITE, TestRecords.SHOP_ORDERS,
                new BsonInt32(1), DOC, null).withShardKey(shardKey);
    }

    private static SinkChange delete(BsonDocument shardKey) {
        return new SinkChange(TestRecords.record("t", 0, null, null), SinkChange.Kind.DELETE, TestRecords.SHOP_ORDERS,
                new BsonInt32(1), null, null).withShardKey(shardKey);
    }

    @Test
    void byDefaultTheShardKeyTheChangeCarriesJoinsTheId() {
        WriteFilter f = new WriteFilter(List.of());
        assertThat(f.of(write(null))).isEqualTo(BsonDocument.parse("{_id: {$eq: 1}}"));
        assertThat(f.of(write(CARRIED))).isEqualTo(BsonDocument.parse("{_id: {$eq: 1}, region: {$eq: 'eu'}, 'customer.id': {$eq: 7}}"));
        assertThat(f.of(delete(CARRIED))).isEqualTo(BsonDocument.parse("{_id: {$eq: 1}, region: {$eq: 'eu'}, 'customer.id': {$eq: 7}}"));
        // an operator-looking value stays a value
        assertThat(f.of(write(BsonDocument.parse("{region: {$ne: null}}"))))
                .isEqualTo(BsonDocument.parse("{_id: {$eq: 1}, region: {$eq: {$ne: null}}}"));
    }

    @Test
    void aDestinationShardedDifferentlyNamesItsShardKeyAndWritesTakeItFromTheDocument() {
        WriteFilter f = new WriteFilter(List.of("customer.id", "zone"));
        // values from the document; a missing field matches as null, as MongoDB treats a missing shard key field
        assertThat(f.of(write(CARRIED))).isEqualTo(BsonDocument.parse("{_id: {$eq: 1}, 'customer.id': {$eq: 7}, zone: {$eq: null}}"));
        // a delete has no document: what the change carries of them, else _id alone
        assertThat(f.of(delete(CARRIED))).isEqualTo(BsonDocument.parse("{_id: {$eq: 1}, 'customer.id': {$eq: 7}}"));
        assertThat(f.of(delete(null))).isEqualTo(BsonDocument.parse("{_id: {$eq: 1}}"));
        assertThat(f.problem(write(null))).isEmpty();
    }

    @Test
    void idAloneForAnUnshardedDestinationFedByAShardedSource() {
        WriteFilter f = new WriteFilter(List.of("_id"));
        assertThat(f.of(write(CARRIED))).isEqualTo(BsonDocument.parse("{_id: {$eq: 1}}"));
        assertThat(f.of(delete(CARRIED))).isEqualTo(BsonDocument.parse("{_id: {$eq: 1}}"));
    }

    @Test
    void aShardKeyFieldHoldingAnArrayCannotBeMatched() {
        assertThat(new WriteFilter(List.of("customer.tags")).problem(write(null))).get().asString()
                .contains("shard key field 'customer.tags'").contains("array");
    }
}
