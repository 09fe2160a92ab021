package dev.tideline.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/**
 * {@link EnvelopeCodec#fromBytesKeepingDocument} accepts and refuses exactly what {@link EnvelopeCodec#fromBytes}
 * does, with the same messages, on valid envelopes and on every truncation and many corruptions of them.
 */
class EnvelopeKeepingDocumentTest {
    private static final Namespace NS = new Namespace("db", "coll");

    private static byte[] bytes(BsonDocument d) {
        return EnvelopeCodec.toBytes(d);
    }

    private static List<byte[]> valid() {
        BsonDocument doc = BsonDocument.parse("{_id: 7, s: 'héllo ✓', b: true, bin: {$binary: {base64: 'AQID', subType: '00'}},"
                + " a: [1, {x: null}], nested: {deep: {deeper: 'x'}}}");
        List<byte[]> all = new ArrayList<>();
        all.add((byte[]) EnvelopeCodec.toValue(new ChangeEvent(Op.INSERT, NS, new BsonInt32(7), doc,
                new BsonTimestamp(1_700_000_000, 3), 1L, "o", new BsonDocument("k", new BsonInt32(1))), ValueFormat.BSON));
        all.add((byte[]) EnvelopeCodec.toValue(new ChangeEvent(Op.DELETE, NS, new BsonInt32(7), null, null, 1L, null),
                ValueFormat.BSON));
        BsonDocument corpus = BsonCorpus.document();
        all.add((byte[]) EnvelopeCodec.toValue(new ChangeEvent(Op.REPLACE, NS, corpus.get("_id"), corpus, null, 5L, "a"),
                ValueFormat.BSON));
        BsonDocument env = EnvelopeCodec.toBson(new ChangeEvent(Op.INSERT, NS, new BsonInt32(7), doc, null, 1L, null));
        all.add(bytes(env.clone().append("extra", new BsonString("x"))));                      // unknown field
        all.add(bytes(env.clone().append(EnvelopeCodec.F_DOCUMENT, new BsonDocument("_id", new BsonInt32(8))))); // twice
        all.add(bytes(env.clone().append("_id", new BsonInt32(7))));                          // not an envelope
        for (String f : List.of("v", "op", "db", "coll", "id", "document", "clusterTime", "wallTime", "origin", "shardKey")) {
            all.add(bytes(env.clone().append(f, new BsonString("wrong type"))));
            all.add(bytes(env.clone().append(f, new BsonDocument("wrong", new BsonInt32(1)))));
            BsonDocument without = env.clone();
            without.remove(f);
            all.add(bytes(without));
        }
        all.add(bytes(BsonDocument.parse("{_id: 1, document: {a: 1}}")));                    // a plain document
        return all;
    }

    @Test
    void validAndWrongTypedEnvelopesReadTheSame() {
        for (byte[] b : valid()) {
            assertSame(b);
        }
    }

    @Test
    void everyTruncationAndCorruptionIsRefusedTheSame() {
        int cases = 0;
        for (byte[] b : valid()) {
            for (int len = 0; len < b.length; len++) {
                byte[] cut = Arrays.copyOf(b, len);
                assertSame(cut);
                if (len >= 4) { // the root length fixed to the cut: the break lands inside
                    byte[] fixed = cut.clone();
                    fixed[0] = (byte) len;
                    fixed[1] = (byte) (len >> 8);
                    assertSame(fixed);
                }
                cases += 2;
            }
            for (int pos = 0; pos < b.length; pos++) {
                for (int v : new int[] {0, 1, 2, 0x7F, 0xFF, b[pos] + 1, b[pos] - 1}) {
                    byte[] flipped = b.clone();
                    flipped[pos] = (byte) v;
                    assertSame(flipped);
                    cases++;
                }
            }
        }
        assertThat(cases).isGreaterThan(10_000);
    }

    @Test
    void aDocumentWhoseInnerLengthLiesOrWhoseValuesDoNotDecodeIsRefusedWithTheDecodersReason() {
        BsonDocument doc = BsonDocument.parse("{_id: 7, s: 'abc', b: true}");
        byte[] b = (byte[]) EnvelopeCodec.toValue(new ChangeEvent(Op.INSERT, NS, new BsonInt32(7), doc, null, 1L, null),
                ValueFormat.BSON);
        int at = indexOf(b, bytes(doc));
        byte[] longer = b.clone();
        longer[at] += 1;      // the document's length says one byte more
        byte[] unterminated = b.clone();
        unterminated[indexOf(b, "abc".getBytes()) + 3] = 'x';
        byte[] badBoolean = b.clone();
        badBoolean[at + bytes(doc).length - 2] = 2;
        for (byte[] bad : List.of(longer, unterminated, badBoolean)) {
            Object old = outcome(bad);
            assertThat(old).isInstanceOf(MalformedRecordException.class);
            assertSame(bad);
        }
    }

    @Test
    void theDocumentOfAnEnvelopeIsAViewAndTheLastOneWhenRepeated() {
        BsonDocument env = EnvelopeCodec.toBson(new ChangeEvent(Op.INSERT, NS, new BsonInt32(7),
                new BsonDocument("_id", new BsonInt32(7)), null, 1L, null));
        BsonDocument kept = EnvelopeCodec.fromBytesKeepingDocument(bytes(env));
        assertThat(kept.get(EnvelopeCodec.F_DOCUMENT)).isInstanceOf(RawBsonDocument.class);
        BsonDocument twice = env.clone().append(EnvelopeCodec.F_DOCUMENT, new BsonDocument("_id", new BsonInt32(8)));
        assertThat(EnvelopeCodec.fromBson(EnvelopeCodec.fromBytesKeepingDocument(bytes(twice))).document())
                .isEqualTo(new BsonDocument("_id", new BsonInt32(8)));
        BsonDocument plain = EnvelopeCodec.fromBytesKeepingDocument(bytes(BsonDocument.parse("{_id: 1, document: {a: 1}}")));
        assertThat(plain.get(EnvelopeCodec.F_DOCUMENT)).isNotInstanceOf(RawBsonDocument.class);
    }

    @Test
    void aDocumentWithTwoTopLevelIdsIsDecodedAsBeforeNotViewed() {
        // {_id: 7, _iX: 8} with X patched to 'd': two top-level _id fields. Decoded, the last counts; a view of the
        // bytes would answer the first, so the _id checked would not be the one decoding saw.
        BsonDocument env = EnvelopeCodec.toBson(new ChangeEvent(Op.INSERT, NS, new BsonInt32(7),
                new BsonDocument("_id", new BsonInt32(7)).append("_iX", new BsonInt32(8)), null, 1L, null));
        byte[] b = bytes(env);
        int at = indexOf(b, "_iX".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        b[at + 2] = 'd';
        BsonDocument kept = EnvelopeCodec.fromBytesKeepingDocument(b);
        assertThat(kept.get(EnvelopeCodec.F_DOCUMENT)).isNotInstanceOf(RawBsonDocument.class);
        assertThat(kept.getDocument(EnvelopeCodec.F_DOCUMENT).get("_id")).isEqualTo(new BsonInt32(8));
        assertSame(b);
    }

    /** Both readers give equal documents, and equal events or the same refusal from them; or the same refusal. */
    private static void assertSame(byte[] b) {
        Object old = outcome(b);
        Object now;
        try {
            now = EnvelopeCodec.fromBytesKeepingDocument(b);
        } catch (RuntimeException e) {
            now = e;
        }
        String hex = java.util.HexFormat.of().formatHex(b);
        if (old instanceof Throwable t) {
            assertThat(now).as(hex).isInstanceOf(t.getClass());
            assertThat(((Throwable) now).getMessage()).as(hex).isEqualTo(t.getMessage());
            return;
        }
        assertThat(now).as(hex).isEqualTo(old);
        assertThat(event((BsonDocument) now)).as(hex).isEqualTo(event((BsonDocument) old));
    }

    private static Object event(BsonDocument d) {
        if (!EnvelopeCodec.looksLikeEnvelope(d)) {
            return "not an envelope";
        }
        try {
            return EnvelopeCodec.fromBson(d); // a raw document equals its decoded form
        } catch (RuntimeException ex) {
            return ex.getClass() + ": " + ex.getMessage();
        }
    }

    private static Object outcome(byte[] b) {
        try {
            return EnvelopeCodec.fromBytes(b);
        } catch (RuntimeException e) {
            return e;
        }
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i <= hay.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
