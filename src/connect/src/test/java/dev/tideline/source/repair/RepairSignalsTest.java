package dev.tideline.source.repair;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

class RepairSignalsTest {
    private static RepairSignals.Parsed parse(String json) {
        return RepairSignals.parse(BsonDocument.parse(json));
    }

    @Test
    void aCollectionAloneIsTheWholeCollection() {
        RepairSignals.Parsed p = parse("{_id: 1, collection: 'orders'}");
        assertThat(p.ok()).isTrue();
        assertThat(p.request().collection()).isEqualTo("orders");
        assertThat(p.request().signal()).isEqualTo(new BsonInt32(1));
        assertThat(p.request().scope()).isInstanceOf(RepairRequest.Whole.class);
    }

    @Test
    void boundsMakeARangeEitherMayBeOpen() {
        assertThat(parse("{_id: 1, collection: 'c', from: 10, to: 20}").request().scope())
                .isEqualTo(new RepairRequest.Range(new BsonInt32(10), new BsonInt32(20)));
        assertThat(parse("{_id: 1, collection: 'c', to: 'm'}").request().scope())
                .isEqualTo(new RepairRequest.Range(null, new BsonString("m")));
        // across types, in MongoDB's order: every number comes before every string
        assertThat(parse("{_id: 1, collection: 'c', from: 5, to: 'a'}").ok()).isTrue();
        assertThat(parse("{_id: 1, collection: 'c', from: 'a', to: 5}").problem()).contains("must come before");
        assertThat(parse("{_id: 1, collection: 'c', from: 5, to: 5}").problem()).contains("must come before");
    }

    @Test
    void listedIdsAreSortedInMongoOrderWithoutEqualNumbers() {
        RepairRequest.Scope s = parse("{_id: 1, collection: 'c', ids: ['b', 3, {$numberLong: '3'}, 1, 'a']}").request().scope();
        assertThat(((RepairRequest.Ids) s).ids()).containsExactly(new BsonInt32(1), new BsonInt32(3), new BsonString("a"),
                new BsonString("b"));
    }

    @Test
    void refusalsSayWhatIsWrong() {
        assertThat(parse("{_id: 1}").problem()).contains("\"collection\"");
        assertThat(parse("{_id: 1, collection: ''}").problem()).contains("\"collection\"");
        assertThat(parse("{collection: 'c'}").problem()).contains("_id");
        assertThat(parse("{_id: 1, collection: 'c', type: 'other'}").problem()).contains("type must be \"repair\"");
        assertThat(parse("{_id: 1, collection: 'c', ids: []}").problem()).contains("non-empty array");
        assertThat(parse("{_id: 1, collection: 'c', ids: 5}").problem()).contains("non-empty array");
        assertThat(parse("{_id: 1, collection: 'c', ids: [1], from: 0}").problem()).contains("not both");
        assertThat(parse("{_id: 1, collection: 'c', ids: [[1]]}").problem()).contains("cannot be an _id");
        assertThat(parse("{_id: 1, collection: 'c', ids: [{$exists: true}]}").problem()).contains("operator");
        assertThat(parse("{_id: 1, collection: 'c', from: {$gt: 1}}").problem()).contains("operator");
        assertThat(parse("{_id: 1, collection: 'c', type: 'repair'}").ok()).isTrue();
    }

    @Test
    void watermarksAreNotSignals() {
        assertThat(RepairSignals.isWatermark(BsonDocument.parse("{tidelineWindow: 'x'}"))).isTrue();
        assertThat(RepairSignals.isWatermark(BsonDocument.parse("{other: 'x'}"))).isFalse();
        assertThat(RepairSignals.isWatermark(new BsonInt32(1))).isFalse();
        assertThat(RepairSignals.isWatermark(null)).isFalse();
    }

    @Test
    void idsAfterResumesPastTheLastHandedOver() {
        List<BsonValue> ids = List.of(new BsonInt32(1), new BsonInt32(2), new BsonInt32(5), new BsonString("a"));
        assertThat(RepairSignals.idsAfter(ids, null, 2)).containsExactly(new BsonInt32(1), new BsonInt32(2));
        assertThat(RepairSignals.idsAfter(ids, new BsonInt32(2), 2)).containsExactly(new BsonInt32(5), new BsonString("a"));
        assertThat(RepairSignals.idsAfter(ids, new BsonInt64(3), 10)).containsExactly(new BsonInt32(5), new BsonString("a"));
        assertThat(RepairSignals.idsAfter(ids, new BsonString("a"), 10)).isEmpty();
    }

    @Test
    void aSignalIdOrListedIdOverTheSizeLimitIsRefusedWithoutPrintingItWhole() {
        String big = "x".repeat(RepairSignals.MAX_SIGNAL_ID_BYTES);
        RepairSignals.Parsed p = RepairSignals.parse(new BsonDocument("_id", new BsonString(big)).append("collection", new BsonString("c")));
        assertThat(p.ok()).isFalse();
        assertThat(p.problem()).contains("bytes; at most " + RepairSignals.MAX_SIGNAL_ID_BYTES).doesNotContain(big);
        String fits = "x".repeat(RepairSignals.MAX_SIGNAL_ID_BYTES - 20);
        assertThat(RepairSignals.parse(new BsonDocument("_id", new BsonString(fits)).append("collection", new BsonString("c"))).ok())
                .isTrue();
        String huge = "y".repeat(RepairSignals.MAX_ID_BYTES);
        RepairSignals.Parsed listed = RepairSignals.parse(new BsonDocument("_id", new BsonInt32(1)).append("collection", new BsonString("c"))
                .append("ids", new org.bson.BsonArray(List.of(new BsonInt32(1), new BsonString(huge)))));
        assertThat(listed.problem()).contains("a repair takes _ids of at most " + RepairSignals.MAX_ID_BYTES).doesNotContain(huge);
        assertThat(parse("{_id: 1, collection: 'c', to: '" + huge + "'}").problem()).contains("at most");
    }
}
