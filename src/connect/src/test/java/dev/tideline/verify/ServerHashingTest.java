package dev.tideline.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

class ServerHashingTest {
    private static String json(List<BsonDocument> pipeline) {
        return pipeline.stream().map(BsonDocument::toJson).toList().toString();
    }

    @Test
    void theSourceSideFindsTheRangeEndAndHashesIt() {
        assertThat(json(ServerHashing.nextRange(null, 1000, Set.of()))).isEqualTo("[{\"$match\": {}}, {\"$sort\": {\"_id\": 1}}, "
                + "{\"$limit\": 1000}, {\"$group\": {\"_id\": null, \"n\": {\"$sum\": 1}, "
                + "\"h\": {\"$sum\": {\"$toDecimal\": {\"$toHashedIndexKey\": \"$$ROOT\"}}}, \"b\": {\"$sum\": {\"$bsonSize\": \"$$ROOT\"}}, "
                + "\"last\": {\"$last\": \"$_id\"}}}]");
    }

    @Test
    void ignoredFieldsAreProjectedAwayBeforeHashing() {
        List<BsonDocument> p = ServerHashing.rangeDigest(new IdRange(new BsonInt32(1), new BsonInt32(9)), Set.of("_tl"));
        assertThat(p).hasSize(3);
        assertThat(p.get(0).getDocument("$match").containsKey("$and")).isTrue();
        assertThat(p.get(1).toJson()).isEqualTo("{\"$project\": {\"_tl\": 0}}");
        assertThat(p.get(2).getDocument("$group").containsKey("last")).isFalse();
        assertThat(json(ServerHashing.idHashes(IdRange.ALL, Set.of("_tl")))).isEqualTo("[{\"$match\": {}}, {\"$sort\": {\"_id\": 1}}, "
                + "{\"$project\": {\"_tl\": 0}}, {\"$project\": {\"h\": {\"$toHashedIndexKey\": \"$$ROOT\"}, \"b\": {\"$bsonSize\": \"$$ROOT\"}}}]");
    }

    @Test
    void digestsAreReadExactly() {
        RangeDigest d = ServerHashing.digestOf(BsonDocument.parse("{_id: null, n: 3, h: {$numberDecimal: '27670116110564327421'}, "
                + "b: {$numberLong: '120'}, last: 'k'}"));
        assertThat(d.documents()).isEqualTo(3);
        assertThat(d.hashSum()).isEqualTo(new BigDecimal("27670116110564327421"));
        assertThat(d.bytes()).isEqualTo(120);
        assertThat(d.lastId().asString().getValue()).isEqualTo("k");
        assertThat(ServerHashing.digestOf(null)).isEqualTo(RangeDigest.EMPTY);
        RangeDigest sameButLast = new RangeDigest(3, new BigDecimal("27670116110564327421.0"), 120, null);
        assertThat(d.sameContentAs(sameButLast)).isTrue();
        assertThat(d.sameContentAs(new RangeDigest(3, new BigDecimal("27670116110564327422"), 120, null))).isFalse();
        assertThat(d.sameContentAs(new RangeDigest(3, d.hashSum(), 121, null))).isFalse();
        assertThat(ServerHashing.fingerprintOf(BsonDocument.parse("{_id: 1, h: {$numberLong: '-5'}, b: 22}"))).isEqualTo("-5/22");
    }
}
