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

    /** The insert's token in MongoDB's manual (https://www.mongodb.com/docs/manual/changeStreams/#resume-tokens-from-change-events). */
    static final String MANUAL_INSERT = "82635019A0000000012B042C0100296E5A1004AB1154ACACD849A48C61756D70D3B21F463C6F7065726174696F6E547970"
            + "65003C696E736572740046646F63756D656E744B65790046645F69640064635019A078BE67426D7CF4D2000004";
    /** The postBatchResumeToken in the manual (#resume-tokens-from-aggregate): a version 2 high-water mark. */
    static final String MANUAL_HIGH_WATER_MARK = "8263515EAC000000022B0429296E1404";

    private static String withoutEnd(String hex) {
        return hex.substring(0, hex.length() - 2);
    }

    @Test
    void readsTheManualsTokensAndFragmentsOfItsInsert() {
        assertThat(FragmentToken.fragmentNumber(token(MANUAL_INSERT))).isEmpty();
        assertThat(FragmentToken.fragmentNumber(token(MANUAL_HIGH_WATER_MARK))).isEmpty();
        assertThat(FragmentToken.fragmentNumber(token(withoutEnd(MANUAL_INSERT) + "29" + "04"))).hasValue(0);
        assertThat(FragmentToken.fragmentNumber(token(withoutEnd(MANUAL_INSERT) + "2C0100" + "04"))).hasValue(128);
        // fragment numbers from 16384 on take three bytes: the old reader, which looked at most two back, missed them
        assertThat(FragmentToken.fragmentNumber(token(withoutEnd(MANUAL_INSERT) + "2D008000" + "04"))).isEmpty(); // not canonical
        assertThat(FragmentToken.fragmentNumber(token(withoutEnd(MANUAL_INSERT) + "2D010000" + "04"))).hasValue(0x8000);
        assertThat(FragmentToken.fragmentNumber(token(withoutEnd(MANUAL_INSERT) + "2EFFFFFFFE" + "04"))).hasValue(Integer.MAX_VALUE);
        // not a fragment number: a fraction, a long's width, two numbers, no end byte
        for (String tail : new String[] {"2B03" + "04", "2F0100000000" + "04", "2904" + "04", "29"}) {
            assertThat(FragmentToken.fragmentNumber(token(withoutEnd(MANUAL_INSERT) + tail))).as(tail).isEmpty();
        }
    }

    /**
     * Events whose identifier ends like a fragment number: the manual's insert with an ObjectId {@code _id} ending
     * {@code 00 2C}, {@code 00 2B} or {@code 00 29} (a version 2 token ends {@code <id> 00 00 04}), and a version 1
     * token (its identifier the document key alone, ending {@code <id> 00 04}) with one ending {@code 00 2C 00}. The
     * reader that looked at the last bytes took them for fragment 0; they are whole events.
     */
    @Test
    void anEventWhoseIdentifierEndsLikeAFragmentNumberIsNoFragment() {
        String oid = "635019A078BE67426D7CF4D2";
        for (String end : new String[] {"002C", "002B", "0029", "2C0000", "002C00"}) {
            String other = oid.substring(0, oid.length() - end.length()) + end;
            String v2 = MANUAL_INSERT.replace(oid, other);
            assertThat(FragmentToken.fragmentNumber(token(v2))).as(v2).isEmpty();
            assertThat(FragmentToken.fragmentNumber(token(withoutEnd(v2) + "2B02" + "04"))).as(v2).hasValue(1);
            String v1 = "82635019A0000000012B022C0100296E5A1004AB1154ACACD849A48C61756D70D3B21F" + "46645F696400" + "64" + other + "00" + "04";
            assertThat(FragmentToken.fragmentNumber(token(v1))).as(v1).isEmpty();
        }
    }

    /** Identifiers of other shapes are stepped over: strings (an escaped 00 within), numbers, arrays, BinData, dates. */
    @Test
    void stepsOverIdentifiersOfManyShapes() {
        String head = "82635019A0000000012B042C0100296E" + "14";
        String operationType = "3C" + "6F7065726174696F6E5479706500" + "3C" + "64656C65746500"; // operationType: "delete"
        String documentKey = "46" + "646F63756D656E744B657900" + "46";
        for (String id : new String[] {"3C" + "5F696400" + "3C" + "61" + "00FF" + "2C00", // "a\u0000,"
                "1E" + "5F696400" + "2C0100", "1E" + "5F696400" + "27FD", "1E" + "5F696400" + "29", // 128, -1, 0
                "50" + "5F696400" + "50" + "2B02" + "3C6200" + "00", // [1, "b"]
                "5A" + "5F696400" + "5A" + "0300" + "002C00", "78" + "5F696400" + "78" + "800001899A2C0000",
                "0A" + "5F696400" + "0A", "82" + "5F696400" + "82" + "635019A000000001"}) {
            String event = head + "46" + operationType + documentKey + id + "00" + "00";
            assertThat(FragmentToken.fragmentNumber(token(event + "04"))).as(id).isEmpty();
            assertThat(FragmentToken.fragmentNumber(token(event + "29" + "04"))).as(id).hasValue(0);
            assertThat(FragmentToken.fragmentNumber(token(event + "2C0100" + "04"))).as(id).hasValue(128);
        }
        // a double with a fraction is not read: such a token is not taken for a fragment's
        assertThat(FragmentToken.fragmentNumber(token(head + "46" + documentKey + "1E5F696400" + "2B03" + "0000000000000000" + "00" + "00"
                + "29" + "04"))).isEmpty();
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
     * The stand-in's event tokens carry a transaction's txnOpIndex: whatever its value, the token must not read as a
     * fragment's (it once did: txnOpIndex 44 written as 8 hex digits, 0000002C, ended like fragment 0), and its
     * fragments' tokens must read with their zero-based number.
     */
    @Test
    void theStandInsEventTokensAreNoFragmentsAndItsFragmentTokensAre() {
        long ts = 0x66F1A2B3_00000001L;
        java.util.List<Integer> indexes = new java.util.ArrayList<>();
        for (int i = 0; i <= 1000; i++) {
            indexes.add(i);
        }
        for (int i : new int[] {0x3FFF, 0x4000, 0x7FFF, 0x8000, 0x40_0000, 0x3FFF_FFFF, 0x4000_0000, ResumeToken.MAX_TXN_OP_INDEX}) {
            indexes.add(i);
        }
        for (int txnOpIndex : indexes) {
            ResumeToken event = ResumeToken.event(ts, txnOpIndex);
            assertThat(FragmentToken.fragmentNumber(standIn(event))).as("txnOpIndex %d", txnOpIndex).isEmpty();
            assertThat(TxnOpIndex.of(standIn(event))).as("txnOpIndex %d", txnOpIndex).hasValue(txnOpIndex);
            for (int fragment : new int[] {1, 2, 44, 45, 128, 129, 300, 1 << 14, (1 << 14) + 1, 1 << 15, Integer.MAX_VALUE}) {
                assertThat(FragmentToken.fragmentNumber(standIn(event.fragment(fragment))))
                        .as("txnOpIndex %d fragment %d", txnOpIndex, fragment).hasValue(fragment - 1);
                assertThat(TxnOpIndex.of(standIn(event.fragment(fragment)))).hasValue(txnOpIndex);
            }
        }
        assertThat(FragmentToken.fragmentNumber(standIn(ResumeToken.invalidate(ts)))).isEmpty();
        assertThat(FragmentToken.fragmentNumber(standIn(ResumeToken.highWaterMark(ts)))).isEmpty();
        assertThat(TxnOpIndex.of(standIn(ResumeToken.highWaterMark(ts)))).isEmpty();
    }

    /** The token as a client reads it: the stand-in's {@code {_data: hex}} document as a BsonDocument. */
    private static BsonDocument standIn(ResumeToken token) {
        return token(token.toDocument().get("_data").toString());
    }
}
