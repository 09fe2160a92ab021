package dev.tideline.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.EnvelopeCodec;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

class DocumentComparisonTest {
    private static RawBsonDocument raw(String json) {
        return new RawBsonDocument(EnvelopeCodec.toBytes(BsonDocument.parse(json)));
    }

    @Test
    void exactComparisonSeesTypeOrderAndFractions() {
        DocumentComparison exact = DocumentComparison.EXACT;
        assertThat(exact.same(raw("{_id: 1, a: 2.3}"), raw("{_id: 1, a: 2.3}"))).isTrue();
        assertThat(exact.same(raw("{_id: 1, a: 2.3}"), raw("{_id: 1, a: 2.9}"))).isFalse();
        assertThat(exact.same(raw("{_id: 1, a: {$numberLong: '5'}}"), raw("{_id: 1, a: 5.0}"))).isFalse();
        assertThat(exact.same(raw("{_id: 1, a: 1, b: 2}"), raw("{_id: 1, b: 2, a: 1}"))).isFalse();
        assertThat(exact.fingerprint(raw("{_id: 1, a: 2.3}"))).isEqualTo(exact.fingerprint(raw("{_id: 1, a: 2.3}")))
                .isNotEqualTo(exact.fingerprint(raw("{_id: 1, a: 2.9}"))).hasSize(32);
    }

    @Test
    void peersIgnoreTheStampOnly() {
        DocumentComparison peers = DocumentComparison.PEERS;
        RawBsonDocument local = raw("{_id: 1, a: 'x'}");
        RawBsonDocument stamped = raw("{_id: 1, a: 'x', _tl: {o: 'B', t: {$timestamp: {t: 1, i: 1}}, h: 'abc'}}");
        assertThat(peers.same(local, stamped)).isTrue();
        assertThat(peers.fingerprint(local)).isEqualTo(peers.fingerprint(stamped));
        assertThat(peers.same(local, raw("{_id: 1, a: 'y', _tl: {o: 'B'}}"))).isFalse();
        assertThat(DocumentComparison.EXACT.same(local, stamped)).isFalse();
    }

    @Test
    void ignoringFieldOrderStillSeesTypesAndValues() {
        DocumentComparison anyOrder = new DocumentComparison(Set.of(), true);
        assertThat(anyOrder.same(raw("{_id: 1, a: 1, b: {x: 1, y: 2}}"), raw("{b: {y: 2, x: 1}, _id: 1, a: 1}"))).isTrue();
        assertThat(anyOrder.same(raw("{_id: 1, a: 1}"), raw("{_id: 1, a: {$numberLong: '1'}}"))).isFalse();
        assertThat(anyOrder.same(raw("{_id: 1, a: 2.3}"), raw("{_id: 1, a: 2.9}"))).isFalse();
        assertThat(anyOrder.describe()).isEqualTo("fields in any order");
        assertThat(new DocumentComparison(Set.of("_tl", "audit"), false).describe()).isEqualTo("bytes without _tl,audit");
    }

    @Test
    void ignoredFieldsAreLeftOutInEveryMode() {
        DocumentComparison ignoreAudit = new DocumentComparison(Set.of("audit"), true);
        BsonDocument a = new BsonDocument("_id", new BsonInt32(1)).append("v", new BsonDouble(1.5)).append("audit", new BsonString("x"));
        BsonDocument b = new BsonDocument("audit", new BsonInt64(9)).append("v", new BsonDouble(1.5)).append("_id", new BsonInt32(1));
        assertThat(ignoreAudit.same(new RawBsonDocument(EnvelopeCodec.toBytes(a)), new RawBsonDocument(EnvelopeCodec.toBytes(b)))).isTrue();
    }
}
