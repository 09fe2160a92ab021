package dev.tideline.source.scan;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDateTime;
import org.bson.BsonObjectId;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class ScanCursorTest {
    @Test
    void isAfterUsesTheIdOnlyOnTies() {
        BsonObjectId a = new BsonObjectId(new ObjectId("65a000000000000000000001"));
        BsonObjectId b = new BsonObjectId(new ObjectId("65a000000000000000000002"));
        ScanCursor at = ScanCursor.after(new BsonDateTime(10), a);
        assertThat(ScanCursor.isAfter(new BsonDateTime(10), b, at)).isTrue();
        assertThat(ScanCursor.isAfter(new BsonDateTime(10), a, at)).isFalse();
        assertThat(ScanCursor.isAfter(new BsonDateTime(9), b, at)).isFalse();
        assertThat(ScanCursor.isAfter(new BsonDateTime(10), a, ScanCursor.from(new BsonDateTime(10)))).isTrue();
        assertThat(ScanCursor.isAfter(new BsonDateTime(0), a, null)).isTrue();
    }
}
