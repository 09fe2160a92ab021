package dev.tideline.source.capture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.standin.ResumeToken;
import java.util.OptionalInt;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** Which resume tokens are a split event's fragments': the KeyString layout MongoDB writes (see {@link FragmentToken}). */
class FragmentTokenTest {
    /**
     * A version 2 event token (MongoDB 7.0) without the KeyString's end byte, laid out field by field: cluster time,
     * version 2, token type 128, txnOpIndex 0, fromInvalidate false, the collection's UUID, and the event identifier
     * {@code {operationType: "insert", documentKey: {_id: ObjectId(...)}}} (each field: its type, its name, its value
     * with its type again), whose document ends with 00.
     */
    private static final String EVENT_BODY = "82" + "66F1A2B3" + "00000001"
            + "2B04" + "2C0100" + "29" + "6E"
            + "5A1004" + "0123456789ABCDEF0123456789ABCDEF"
            + "46"
            + "3C" + "6F7065726174696F6E5479706500" + "3C" + "696E7365727400"
            + "46" + "646F63756D656E744B657900" + "46" + "64" + "5F696400" + "64" + "66F1A2B30102030405060708" + "00"
            + "00";

    private static BsonDocument token(String hex) {
        return new BsonDocument("_data", new BsonString(hex));
    }

    @Test
    void anEventsTokenIsNoFragmentAndItsFragmentsCarryTheirNumber() {
        assertThat(FragmentToken.fragmentNumber(token(EVENT_BODY + "04"))).isEmpty();
        assertThat(FragmentToken.fragmentNumber(token(EVENT_BODY + "29" + "04"))).hasValue(0);
        assertThat(FragmentToken.fragmentNumber(token(EVENT_BODY + "2B02" + "04"))).hasValue(1);
        assertThat(FragmentToken.fragmentNumber(token(EVENT_BODY + "2BFE" + "04"))).hasValue(127);
        assertThat(FragmentToken.fragmentNumber(token(EVENT_BODY + "2C0100" + "04"))).hasValue(128);
        assertThat(FragmentToken.fragmentNumber(token((EVENT_BODY + "2b02" + "04").toLowerCase()))).hasValue(1);
    }

    @Test
    void otherTokensAreNotFragments() {
        // a high-water mark (ends with its fromInvalidate boolean), a version 1 event token, a cluster time alone whose
        // increment happens to end like a fragment number, a 3.6 BinData token, text that is not hex
        assertThat(FragmentToken.fragmentNumber(token("826553F100000000072B0229296E04"))).isEmpty();
        assertThat(FragmentToken.fragmentNumber(token("8263E36CD4000000012B022C0100296E5A1004A1B7F4F0E7F84B0F8E1F2A1C6B3D4E5F"
                + "46645F696400646363E36CD4C4D4F1C0D5A3B3E60004"))).isEmpty();
        assertThat(FragmentToken.fragmentNumber(token("8266F1A2B300002904"))).isEmpty();
        assertThat(FragmentToken.fragmentNumber(new BsonDocument("_data", new BsonBinary(new byte[] {0, 0x29, 4})))).isEmpty();
        assertThat(FragmentToken.fragmentNumber(token("82zz"))).isEmpty();
        assertThat(FragmentToken.fragmentNumber(token("82660029"))).isEmpty();
        assertThat(FragmentToken.fragmentNumber(new BsonDocument())).isEqualTo(OptionalInt.empty());
    }

    /**
     * The stand-in's event tokens carry a transaction's txnOpIndex: whatever its value, the ending must not read as a
     * fragment number (it once did: txnOpIndex 44 written as 8 hex digits, 0000002C, ended like fragment 0), and its
     * fragments' tokens must read with their zero-based number.
     */
    @Test
    void theStandInsEventTokensAreNoFragmentsAndItsFragmentTokensAre() {
        long ts = 0x66F1A2B3_00000001L;
        for (int txnOpIndex = 0; txnOpIndex <= ResumeToken.MAX_TXN_OP_INDEX; txnOpIndex++) {
            ResumeToken event = ResumeToken.event(ts, txnOpIndex);
            assertThat(FragmentToken.fragmentNumber(standIn(event))).as("txnOpIndex %d", txnOpIndex).isEmpty();
            if (txnOpIndex <= 1000) {
                for (int fragment : new int[] {1, 2, 44, 45, 128, 129, 300}) {
                    assertThat(FragmentToken.fragmentNumber(standIn(event.fragment(fragment))))
                            .as("txnOpIndex %d fragment %d", txnOpIndex, fragment).hasValue(fragment - 1);
                }
            }
        }
        assertThat(FragmentToken.fragmentNumber(standIn(ResumeToken.invalidate(ts)))).isEmpty();
        assertThat(FragmentToken.fragmentNumber(standIn(ResumeToken.highWaterMark(ts)))).isEmpty();
    }

    /** The token as a client reads it: the stand-in's {@code {_data: hex}} document as a BsonDocument. */
    private static BsonDocument standIn(ResumeToken token) {
        return token(token.toDocument().get("_data").toString());
    }
}
