package dev.tideline.sink.guard;

import static dev.tideline.sink.TestRecords.SHOP_ORDERS;
import static dev.tideline.sink.TestRecords.delete;
import static dev.tideline.sink.TestRecords.ts;
import static dev.tideline.sink.TestRecords.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

/** Which sidecar entries a batch's writes record, and which of them are inserted rather than upserted. Pure. */
class VersionsToRecordTest {
    @Test
    void versionedChangesAreRecordedFreshOnlyWhereAdmissionFoundNoEntry() {
        List<VersionStore.VersionedWrite> versions = StaleWriteGuard.versionsToRecord(List.of(
                write(SHOP_ORDERS, 1, "new doc", ts(10), 0),
                write(SHOP_ORDERS, 2, "known doc", ts(11), 1),
                delete(SHOP_ORDERS, 3, ts(12), 2)), Set.of(new BsonInt32(1), new BsonInt32(3)));

        assertThat(versions).containsExactly(
                new VersionStore.VersionedWrite(new BsonInt32(1), ts(10), false, "t", 0, true),
                new VersionStore.VersionedWrite(new BsonInt32(2), ts(11), false, "t", 0, false),
                new VersionStore.VersionedWrite(new BsonInt32(3), ts(12), true, "t", 0, true));
    }

    @Test
    void changesWithoutAVersionRecordNothing() {
        assertThat(StaleWriteGuard.versionsToRecord(List.of(write(SHOP_ORDERS, 1, "plain", null, 0),
                delete(SHOP_ORDERS, 2, null, 1)), Set.of(new BsonInt32(1), new BsonInt32(2)))).isEmpty();
    }
}
