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
        assertThat(ResumeToken.highWaterMark(ts).hex()).isEqualTo("82" + "65432100" + "00000007");
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
            ordered.add(event.fragment(1));
            ordered.add(event.fragment(2));
            ordered.add(event.fragment(128));
            ordered.add(event.fragment(129));
            ordered.add(event.fragment(300));
            ordered.add(ResumeToken.invalidate(ts));
            for (int txnOpIndex : new int[] {1, 0x10, 44, 127, 128, 300, ResumeToken.MAX_TXN_OP_INDEX}) {
                ResumeToken ofATransaction = ResumeToken.event(ts, txnOpIndex); // same cluster time, txnOpIndex orders them
                ordered.add(ofATransaction);
                for (int fragment : new int[] {1, 2, 45, 128, 129, 300}) {
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
                ResumeToken.event(42, ResumeToken.MAX_TXN_OP_INDEX).fragment(1 << 15))) {
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
        assertThat(event).endsWith("0004");
        String withoutEnd = event.substring(0, event.length() - 2);
        assertThat(ResumeToken.event(42).fragment(1).hex()).isEqualTo(withoutEnd + "29" + "04");
        assertThat(ResumeToken.event(42).fragment(2).hex()).isEqualTo(withoutEnd + "2B02" + "04");
        assertThat(ResumeToken.event(42).fragment(129).hex()).isEqualTo(withoutEnd + "2C0100" + "04");
    }

    /** The txnOpIndex is written as the fragment number is, as MongoDB's KeyString writes a small integer. */
    @Test
    void theTxnOpIndexIsAKeyStringInteger() {
        String time = ResumeToken.highWaterMark(42).hex();
        assertThat(ResumeToken.event(42, 0).hex()).isEqualTo(time + "2B" + "29" + "00" + "00" + "04");
        assertThat(ResumeToken.event(42, 1).hex()).isEqualTo(time + "2B" + "2B02" + "00" + "00" + "04");
        assertThat(ResumeToken.event(42, 44).hex()).isEqualTo(time + "2B" + "2B58" + "00" + "00" + "04");
        assertThat(ResumeToken.event(42, 127).hex()).isEqualTo(time + "2B" + "2BFE" + "00" + "00" + "04");
        assertThat(ResumeToken.event(42, 128).hex()).isEqualTo(time + "2B" + "2C0100" + "00" + "00" + "04");
        assertThat(ResumeToken.event(42, 300).fragment(2).hex()).isEqualTo(time + "2B" + "2C0258" + "00" + "00" + "2B02" + "04");
        assertThatThrownBy(() -> ResumeToken.event(42, ResumeToken.MAX_TXN_OP_INDEX + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 32768 operations");
    }

    @Test
    void refusesWhatItDidNotWrite() {
        assertThatThrownBy(() -> ResumeToken.parse(new Document("_data", "17f"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResumeToken.parse(new Document("_data", "82ZZ"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResumeToken.parse(new Document("x", 1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResumeToken.parse("82")).isInstanceOf(IllegalArgumentException.class);
        String time = ResumeToken.highWaterMark(42).hex();
        // the old fixed-width txnOpIndex, a 2C integer below 128, an odd (fractional) one, one cut short
        for (String data : List.of(time + "2B" + "0000002C" + "00" + "00" + "04", time + "2B" + "2C0058" + "00" + "00" + "04",
                time + "2B" + "2B03" + "00" + "00" + "04", time + "2B" + "2C01" + "04", time + "2B" + "29" + "00" + "00" + "2B" + "04")) {
            assertThatThrownBy(() -> ResumeToken.parse(new Document("_data", data))).as(data).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
