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
            ResumeToken secondOfATransaction = ResumeToken.event(ts, 1); // same cluster time, txnOpIndex orders them
            ordered.add(secondOfATransaction);
            ordered.add(secondOfATransaction.fragment(1));
            ordered.add(ResumeToken.event(ts, 0x10));
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
                ResumeToken.event(42).fragment(1), ResumeToken.event(42).fragment(200), ResumeToken.invalidate(42))) {
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

    @Test
    void refusesWhatItDidNotWrite() {
        assertThatThrownBy(() -> ResumeToken.parse(new Document("_data", "17f"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResumeToken.parse(new Document("_data", "82ZZ"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResumeToken.parse(new Document("x", 1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResumeToken.parse("82")).isInstanceOf(IllegalArgumentException.class);
    }
}
