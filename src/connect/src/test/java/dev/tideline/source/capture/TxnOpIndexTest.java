package dev.tideline.source.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** Reading {@code txnOpIndex} from MongoDB's resume tokens (the layout of resume_token.h, KeyString integers). */
class TxnOpIndexTest {
    private static final String CLUSTER_TIME = "82" + "6571A3F2" + "00000003";
    private static final String REST = "6E" + "5A1004" + "0123456789ABCDEF0123456789ABCDEF" + "46645F6964002B0A" + "0004";

    private static BsonDocument token(String hex) {
        return new BsonDocument("_data", new BsonString(hex));
    }

    /** An event's token of token version {@code version} (KeyString int) with {@code index} written as given. */
    private static BsonDocument event(String version, String index) {
        return token(CLUSTER_TIME + version + "2C0100" + index + REST);
    }

    @Test
    void readsTheIndexOfEventTokensOfBothVersions() {
        assertThat(TxnOpIndex.of(event("2B02", "29"))).hasValue(0);
        assertThat(TxnOpIndex.of(event("2B04", "29"))).hasValue(0);
        assertThat(TxnOpIndex.of(event("2B02", "2B0A"))).hasValue(5);
        assertThat(TxnOpIndex.of(event("2B04", "2C0258"))).hasValue(300);
        assertThat(TxnOpIndex.of(event("2B04", "2D0222E0"))).hasValue(70000);
        assertThat(TxnOpIndex.of(event("2B04", "2EFFFFFFFE"))).hasValue(Integer.MAX_VALUE);
        assertThat(TxnOpIndex.of(token((CLUSTER_TIME + "2B042C01002B0A" + REST).toLowerCase()))).hasValue(5);
        assertThat(TxnOpIndex.of(token(FragmentTokenTest.MANUAL_INSERT))).as("the manual's insert").hasValue(0);
    }

    @Test
    void saysNothingForOtherTokens() {
        assertThat(TxnOpIndex.of(token(CLUSTER_TIME + "2B0229296E04"))).as("a high-water mark").isEmpty();
        assertThat(TxnOpIndex.of(token(FragmentTokenTest.MANUAL_HIGH_WATER_MARK))).as("the manual's high-water mark").isEmpty();
        assertThat(TxnOpIndex.of(event("2B04", "2C0058"))).as("not in the fewest bytes").isEmpty();
        assertThat(TxnOpIndex.of(event("2B06", "29"))).as("version 3").isEmpty();
        assertThat(TxnOpIndex.of(event("2B04", "2B0B"))).as("a fraction").isEqualTo(OptionalInt.empty());
        assertThat(TxnOpIndex.of(event("2B04", "2F"))).as("an integer wider than an index").isEmpty();
        assertThat(TxnOpIndex.of(token(CLUSTER_TIME + "2B042C01002C02"))).as("cut short").isEmpty();
        assertThat(TxnOpIndex.of(token(CLUSTER_TIME))).isEmpty();
        assertThat(TxnOpIndex.of(token("not hex"))).isEmpty();
        assertThat(TxnOpIndex.of(token("0102"))).isEmpty();
        assertThat(TxnOpIndex.of(new BsonDocument())).isEmpty();
        assertThat(TxnOpIndex.of(null)).isEmpty();
    }
}
