package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResumeTokenTest {

    @Test
    void startsWithTheTimestampTypeByteAndTheClusterTimeBigEndian() {
        long ts = new BsonTimestamp(Instant.ofEpochSecond(0x6543_2100L), 7).getValue();
        assertThat(ResumeToken.event(ts).hex()).startsWith("82" + "65432100" + "00000007");
        assertThat(ResumeToken.highWaterMark(ts).hex()).isEqualTo("82" + "65432100" + "00000007" + "2B0429296E1404");
    }

    /**
     * Tokens of MongoDB's manual (https://www.mongodb.com/docs/manual/changeStreams/#resume-tokens-from-aggregate and
     * #resume-tokens-from-change-events, MongoDB 6.0+ output): the stand-in's high-water mark is byte for byte the
     * server's, and its event token has the server's fields up to the collection UUID, where MongoDB has the real one.
     */
    @Test
    void writesTheTokensOfMongoDbsManual() {
        String postBatchResumeToken = "8263515EAC000000022B0429296E1404";
        long ts = new BsonTimestamp(Instant.ofEpochSecond(1666277036), 2).getValue();
        assertThat(ResumeToken.highWaterMark(ts).hex()).isEqualTo(postBatchResumeToken);
        assertThat(ResumeToken.parse(new Document("_data", postBatchResumeToken))).isEqualTo(ResumeToken.highWaterMark(ts));
        String insert = "82635019A0000000012B042C0100296E5A1004AB1154ACACD849A48C61756D70D3B21F463C6F7065726174696F6E54797065003C"
                + "696E736572740046646F63756D656E744B65790046645F69640064635019A078BE67426D7CF4D2000004";
        String ours = ResumeToken.event(new BsonTimestamp(Instant.ofEpochSecond(1666193824), 1).getValue()).hex();
        assertThat(ours).isEqualTo(insert.substring(0, insert.indexOf("5A1004")) + "14" + "4600" + "04");
        assertThat(ours.compareTo(insert)).as("null sorts before a UUID: the same place among the cluster time's events").isNegative();
    }

    @Test
    void aTransactionsTokenReadsBackWithItsTxnOpIndexAndItsFragment() {
        ResumeToken token = ResumeToken.event(42, 7).fragment(3);
        assertThat(ResumeToken.parse(token.toDocument())).isEqualTo(token);
        assertThat(token.wholeEvent()).isEqualTo(ResumeToken.event(42, 7));
        assertThat(ResumeToken.parse(ResumeToken.invalidate(42).toDocument())).isEqualTo(ResumeToken.invalidate(42));
    }

    @Test
    void tokensCompareAsStringsInTheOrderOfTheirPositions() {
        List<ResumeToken> ordered = new ArrayList<>();
        for (long ts : new long[] {5, 6, 0x1_0000_0000L, 0x1_0000_0001L}) {
            ResumeToken event = ResumeToken.event(ts);
            ordered.add(ResumeToken.highWaterMark(ts));
            ordered.add(event);
            for (int fragment : new int[] {1, 2, 128, 129, 300, 1 << 15, (1 << 15) + 1, 1 << 22, Integer.MAX_VALUE}) {
                ordered.add(event.fragment(fragment));
            }
            ordered.add(ResumeToken.invalidate(ts));
            for (int txnOpIndex : new int[] {1, 0x10, 44, 127, 128, 300, 0x3FFF, 0x4000, 0x7FFF, 0x8000, 0x40_0000,
                    0x3FFF_FFFF, 0x4000_0000, ResumeToken.MAX_TXN_OP_INDEX}) {
                ResumeToken ofATransaction = ResumeToken.event(ts, txnOpIndex); // same cluster time, txnOpIndex orders them
                ordered.add(ofATransaction);
                for (int fragment : new int[] {1, 2, 45, 128, 129, 300, 1 << 15, 1 << 23}) {
                    ordered.add(ofATransaction.fragment(fragment));
                }
            }
        }
        List<ResumeToken> byString = new ArrayList<>(ordered);
        Collections.shuffle(byString);
        byString.sort((a, b) -> a.hex().compareTo(b.hex()));
        List<ResumeToken> byValue = new ArrayList<>(ordered);
        Collections.shuffle(byValue);
        Collections.sort(byValue);
        assertThat(byString).containsExactlyElementsOf(ordered);
        assertThat(byValue).containsExactlyElementsOf(ordered);
        assertThat(ResumeToken.after(5)).isEqualTo(ResumeToken.highWaterMark(6));
    }

    @Test
    void readsBackWhatItWrites() {
        for (ResumeToken t : List.of(ResumeToken.highWaterMark(42), ResumeToken.event(42), ResumeToken.event(42).fragment(3),
                ResumeToken.event(42).fragment(1), ResumeToken.event(42).fragment(200), ResumeToken.invalidate(42),
                ResumeToken.event(42, 44), ResumeToken.event(42, 127).fragment(129), ResumeToken.event(42, 128).fragment(1),
                ResumeToken.event(42, ResumeToken.MAX_TXN_OP_INDEX).fragment(1 << 15),
                ResumeToken.event(42, 1 << 20).fragment(Integer.MAX_VALUE))) {
            assertThat(ResumeToken.parse(t.toDocument())).isEqualTo(t);
            assertThat(ResumeToken.parse(new Document("_data", t.hex().toLowerCase()))).isEqualTo(t);
        }
        assertThat(ResumeToken.parse(ResumeToken.invalidate(1).toDocument()).isInvalidate()).isTrue();
        assertThat(ResumeToken.parse(ResumeToken.event(1).fragment(2).toDocument()).isFragment()).isTrue();
    }

    /** MongoDB's fragment token is its event's token with a zero-based fragmentNum before the KeyString's end. */
    @Test
    void aFragmentsTokenIsItsEventsTokenWithTheFragmentNumberBeforeTheEnd() {
        String event = ResumeToken.event(42).hex();
        assertThat(event).endsWith("6E" + "14" + "4600" + "04");
        String withoutEnd = event.substring(0, event.length() - 2);
        assertThat(ResumeToken.event(42).fragment(1).hex()).isEqualTo(withoutEnd + "29" + "04");
        assertThat(ResumeToken.event(42).fragment(2).hex()).isEqualTo(withoutEnd + "2B02" + "04");
        assertThat(ResumeToken.event(42).fragment(129).hex()).isEqualTo(withoutEnd + "2C0100" + "04");
        assertThat(ResumeToken.invalidate(42).hex()).isEqualTo(event.replace("6E144600", "6F144600"));
    }

    /** The txnOpIndex is a KeyString integer in as few bytes as hold it, up to a NumberInt's largest. */
    @Test
    void theTxnOpIndexIsAKeyStringInteger() {
        String head = ResumeToken.highWaterMark(42).hex().substring(0, 18) + "2B04" + "2C0100";
        String tail = "6E" + "14" + "4600" + "04";
        assertThat(ResumeToken.event(42, 0).hex()).isEqualTo(head + "29" + tail);
        assertThat(ResumeToken.event(42, 1).hex()).isEqualTo(head + "2B02" + tail);
        assertThat(ResumeToken.event(42, 44).hex()).isEqualTo(head + "2B58" + tail);
        assertThat(ResumeToken.event(42, 127).hex()).isEqualTo(head + "2BFE" + tail);
        assertThat(ResumeToken.event(42, 128).hex()).isEqualTo(head + "2C0100" + tail);
        assertThat(ResumeToken.event(42, 0x8000).hex()).isEqualTo(head + "2D010000" + tail);
        assertThat(ResumeToken.event(42, 0x80_0000).hex()).isEqualTo(head + "2E01000000" + tail);
        assertThat(ResumeToken.event(42, Integer.MAX_VALUE).hex()).isEqualTo(head + "2EFFFFFFFE" + tail);
        assertThat(ResumeToken.event(42, 300).fragment(2).hex()).isEqualTo(head + "2C0258" + "6E144600" + "2B02" + "04");
    }

    @Test
    void refusesWhatItDidNotWrite() {
        assertThatThrownBy(() -> ResumeToken.parse(new Document("_data", "17f"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResumeToken.parse(new Document("_data", "82ZZ"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResumeToken.parse(new Document("x", 1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResumeToken.parse("82")).isInstanceOf(IllegalArgumentException.class);
        String time = ResumeToken.highWaterMark(42).hex().substring(0, 18);
        String head = time + "2B04" + "2C0100";
        // the stand-in's layout before version 2, a version 1 high-water mark, a 2C integer below 128, an odd (fractional)
        // one, one cut short, a fragment of an invalidate, a fragmentNum past the stand-in's, something after the end
        for (String data : List.of(time + "2B" + "29" + "00" + "00" + "04", time + "2B0229296E04", head + "2C0058" + "6E144600" + "04",
                head + "2B03" + "6E144600" + "04", head + "2C01" + "04", head + "29" + "6F144600" + "29" + "04",
                head + "29" + "6E144600" + "2EFFFFFFFE" + "04", head + "29" + "6E144600" + "04" + "04", head + "29" + "6E" + "04")) {
            assertThatThrownBy(() -> ResumeToken.parse(new Document("_data", data))).as(data).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
