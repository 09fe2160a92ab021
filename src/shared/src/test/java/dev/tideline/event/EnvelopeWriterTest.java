package dev.tideline.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The direct writer gives the general path's bytes for every shape it takes, and declines every other one. */
class EnvelopeWriterTest {
    /** Strings the UTF-8 encoder must get right: multi-byte, 4-byte (a surrogate pair), a lone surrogate, an embedded 0. */
    private static final List<String> STRINGS = List.of("", "plain", "héllo ✓", "emoji \uD83D\uDE00 here", "lone \uD800 high",
            "lone \uDC00 low", "nul\u0000inside", "é".repeat(300));

    static Stream<BsonValue> simpleIds() {
        List<BsonValue> ids = new ArrayList<>(List.of(new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")),
                new BsonInt32(Integer.MIN_VALUE), new BsonInt32(7), new BsonInt64(Long.MAX_VALUE), new BsonInt64(-9L)));
        STRINGS.forEach(s -> ids.add(new BsonString(s)));
        return ids.stream();
    }

    private static byte[] general(ChangeEvent e) {
        return EnvelopeCodec.toBytes(EnvelopeCodec.toBson(e));
    }

    @ParameterizedTest
    @MethodSource("simpleIds")
    void writesTheGeneralPathsBytesForEveryShapeItTakes(BsonValue id) {
        RawBsonDocument raw = new RawBsonDocument(BsonCorpus.document().append("_id", id), new BsonDocumentCodec());
        BsonTimestamp ct = new BsonTimestamp(1_714_521_600, 3);
        for (String origin : new String[] {null, "cluster-a", "lone \uD800"}) {
            for (ChangeEvent e : List.of(ChangeEvent.read(new Namespace("db", "coll"), id, raw, ct, 1_714_521_600_456L),
                    new ChangeEvent(Op.INSERT, new Namespace("dé✓", "c\uD83D\uDE00"), id, raw, null, -1L, origin),
                    new ChangeEvent(Op.DELETE, new Namespace("db", "coll"), id, null, ct, 0L, origin))) {
                byte[] direct = EnvelopeWriter.envelope(e);
                assertThat(direct).as("%s", e).isNotNull().isEqualTo(general(e));
            }
        }
        byte[] key = EnvelopeWriter.key(id);
        assertThat(key).isNotNull();
        assertThat(key).isEqualTo(EnvelopeCodec.toBytes(new BsonDocument("_id", id)));
    }

    @Test
    void aRawDocumentThatIsAViewIntoALargerArrayIsCopiedFromItsOwnBytesOnly() {
        // the driver's batches hand out documents that may share one array: only the document's own range is copied
        BsonDocument outer = new BsonDocument("pad", new BsonString("x".repeat(100))).append("doc", BsonCorpus.document());
        RawBsonDocument rawOuter = new RawBsonDocument(outer, new BsonDocumentCodec());
        BsonDocument view = rawOuter.getDocument("doc");
        assertThat(view).isInstanceOf(RawBsonDocument.class);
        ChangeEvent e = ChangeEvent.read(new Namespace("db", "coll"), new BsonInt32(1), view, null, 5L);
        assertThat(EnvelopeWriter.envelope(e)).isEqualTo(general(e));
    }

    @Test
    void declinesWhatItDoesNotWrite() {
        Namespace ns = new Namespace("db", "coll");
        BsonDocument decoded = BsonDocument.parse("{_id: 1, a: 'x'}");
        RawBsonDocument raw = new RawBsonDocument(decoded, new BsonDocumentCodec());
        assertThat(EnvelopeWriter.envelope(ChangeEvent.read(ns, new BsonInt32(1), decoded, null, 5L))).as("a decoded document").isNull();
        assertThat(EnvelopeWriter.envelope(ChangeEvent.read(ns, new BsonDecimal128(Decimal128.parse("1.5")), raw, null, 5L)))
                .as("an id of another type").isNull();
        assertThat(EnvelopeWriter.envelope(new ChangeEvent(Op.INSERT, ns, new BsonInt32(1), raw, null, 5L, null,
                new BsonDocument("region", new BsonString("eu"))))).as("a shard key").isNull();
        assertThat(EnvelopeWriter.key(new BsonDocument("a", new BsonInt32(1)))).as("a document id").isNull();
        // and the codec still writes them, through the general path
        ChangeEvent other = ChangeEvent.read(ns, new BsonDecimal128(Decimal128.parse("1.5")), raw, null, 5L);
        assertThat(EnvelopeCodec.toValue(other, ValueFormat.BSON)).isEqualTo(general(other));
    }
}
