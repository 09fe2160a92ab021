package dev.tideline.peer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.ExtendedJson;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

class ContentHashTest {
    private static BsonDocument doc() {
        return new BsonDocument("_id", new BsonInt32(1)).append("name", new BsonString("ada"))
                .append("n", new BsonInt64(1L << 40)).append("tags", new BsonArray(java.util.List.of(new BsonString("a"), new BsonString("b"))))
                .append("nested", new BsonDocument("x", new BsonDouble(1.5)).append("y", new BsonInt32(2)));
    }

    @Test
    void equalAcrossEncodingsAndFieldOrder() {
        BsonDocument d = doc();
        RawBsonDocument raw = new RawBsonDocument(EnvelopeCodec.toBytes(d));
        BsonDocument viaJson = ExtendedJson.toDocument(ExtendedJson.toMap(d));
        BsonDocument reordered = new BsonDocument("nested", new BsonDocument("y", new BsonInt32(2)).append("x", new BsonDouble(1.5)))
                .append("tags", d.get("tags")).append("n", d.get("n")).append("name", d.get("name")).append("_id", d.get("_id"));
        assertThat(ContentHash.of(raw)).isEqualTo(ContentHash.of(d));
        assertThat(ContentHash.of(viaJson)).isEqualTo(ContentHash.of(d));
        assertThat(ContentHash.of(reordered)).isEqualTo(ContentHash.of(d));
    }

    @Test
    void theStampIsNotContentButEverythingElseIs() {
        BsonDocument stamped = new PeerStamp(new Version(new BsonTimestamp(5, 1), "A"), "h", null).applyTo(doc());
        assertThat(ContentHash.of(stamped)).isEqualTo(ContentHash.of(doc()));
        assertThat(ContentHash.of(doc().append("name", new BsonString("bob")))).isNotEqualTo(ContentHash.of(doc()));
        // types count: replication keeps them, so int32 1 and int64 1 are different contents
        assertThat(ContentHash.of(new BsonDocument("v", new BsonInt32(1)))).isNotEqualTo(ContentHash.of(new BsonDocument("v", new BsonInt64(1))));
        // array order counts, and structure is unambiguous
        assertThat(ContentHash.of(new BsonDocument("a", new BsonArray(java.util.List.of(new BsonInt32(1), new BsonInt32(2))))))
                .isNotEqualTo(ContentHash.of(new BsonDocument("a", new BsonArray(java.util.List.of(new BsonInt32(2), new BsonInt32(1))))));
        assertThat(ContentHash.of(new BsonDocument("ab", new BsonString("c")))).isNotEqualTo(ContentHash.of(new BsonDocument("a", new BsonString("bc"))));
        // a _tl below the top level is content
        assertThat(ContentHash.of(new BsonDocument("x", new BsonDocument("_tl", new BsonInt32(1)))))
                .isNotEqualTo(ContentHash.of(new BsonDocument("x", new BsonDocument())));
    }

    @Test
    void negativeZeroAndNaNAreCanonical() {
        assertThat(ContentHash.of(new BsonDocument("d", new BsonDouble(-0.0)))).isEqualTo(ContentHash.of(new BsonDocument("d", new BsonDouble(0.0))));
        assertThat(ContentHash.of(new BsonDocument("d", new BsonDouble(Double.longBitsToDouble(0x7ff8000000000001L)))))
                .isEqualTo(ContentHash.of(new BsonDocument("d", new BsonDouble(Double.NaN))));
    }
}
