package dev.tideline.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;
import org.junit.jupiter.api.Test;

class ExtendedJsonTest {

    @Test
    void everyCorpusValueRoundTripsToTheByte() {
        BsonDocument original = BsonCorpus.document();
        BsonDocument back = ExtendedJson.toDocument(ExtendedJson.toMap(original));
        assertThat(EnvelopeCodec.toBytes(back)).isEqualTo(EnvelopeCodec.toBytes(original));
    }

    @Test
    void eachCorpusFieldAgreesWithTheDriversExtendedJsonParser() {
        // our map form, printed as JSON by the driver's relaxed writer, must parse back identically
        BsonDocument original = BsonCorpus.document();
        for (Map.Entry<String, BsonValue> e : original.entrySet()) {
            BsonDocument single = new BsonDocument(e.getKey(), e.getValue());
            BsonDocument ours = ExtendedJson.toDocument(ExtendedJson.toMap(single));
            BsonDocument driver = BsonDocument.parse(single.toJson(JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build()));
            assertThat(EnvelopeCodec.toBytes(ours)).as(e.getKey()).isEqualTo(EnvelopeCodec.toBytes(driver));
        }
    }

    @Test
    void int64IsWrappedAndBareIntegersAreInt32() {
        assertThat(ExtendedJson.toJava(new BsonInt64(5L))).isEqualTo(Map.of("$numberLong", "5"));
        assertThat(ExtendedJson.toJava(new BsonInt32(5))).isEqualTo(5);
        assertThat(ExtendedJson.toBson(5L)).isEqualTo(new BsonInt32(5));
        assertThat(ExtendedJson.toBson(5_000_000_000L)).isEqualTo(new BsonInt64(5_000_000_000L));
    }

    @Test
    void datesUseIsoInsideYears1970To9999AndCanonicalOutside() {
        assertThat(ExtendedJson.toJava(new BsonDateTime(0L))).isEqualTo(Map.of("$date", "1970-01-01T00:00:00.000Z"));
        assertThat(ExtendedJson.toJava(new BsonDateTime(253_402_300_799_999L))).isEqualTo(Map.of("$date", "9999-12-31T23:59:59.999Z"));
        assertThat(ExtendedJson.toJava(new BsonDateTime(-1L))).isEqualTo(Map.of("$date", Map.of("$numberLong", "-1")));
        assertThat(ExtendedJson.toJava(new BsonDateTime(253_402_300_800_000L)))
                .isEqualTo(Map.of("$date", Map.of("$numberLong", "253402300800000")));
    }

    @Test
    void timestampPartsAreUnsigned() {
        Object json = ExtendedJson.toJava(new BsonTimestamp((int) 0x8000_0001L, -1));
        assertThat(json).isEqualTo(Map.of("$timestamp", Map.of("t", 0x8000_0001L, "i", 0xFFFF_FFFFL)));
    }

    @Test
    void badWrappersAreRejectedWithTheWrapperName() {
        assertThatThrownBy(() -> ExtendedJson.toBson(Map.of("$oid", "nothex")))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("$oid");
        assertThatThrownBy(() -> ExtendedJson.toBson(Map.of("$date", "yesterday")))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("$date");
        assertThatThrownBy(() -> ExtendedJson.toBson(Map.of("$numberLong", 5)))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("expected a string");
        assertThatThrownBy(() -> ExtendedJson.toBson(new Object()))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("Object");
    }
}
