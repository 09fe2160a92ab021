package dev.tideline.sink.plan;

import static dev.tideline.sink.TestRecords.SHOP_ORDERS;
import static dev.tideline.sink.TestRecords.delete;
import static dev.tideline.sink.TestRecords.ts;
import static dev.tideline.sink.TestRecords.update;
import static dev.tideline.sink.TestRecords.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.event.Namespace;
import dev.tideline.sink.route.RoutedChange;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

class WritePlannerTest {
    private static final Namespace USERS = new Namespace("shop", "users");

    @Test
    void lastChangePerIdWinsAndKeepsItsArrivalPosition() {
        WritePlan plan = WritePlanner.plan(List.of(
                write(SHOP_ORDERS, 1, "a1", null, 0),
                write(SHOP_ORDERS, 2, "b1", null, 1),
                write(SHOP_ORDERS, 1, "a2", null, 2),
                delete(SHOP_ORDERS, 2, null, 3),
                write(SHOP_ORDERS, 3, "c1", null, 4)));

        assertThat(plan.batches()).hasSize(1);
        List<RoutedChange> writes = plan.batches().get(0).writes();
        assertThat(writes).extracting(rc -> rc.change().record().kafkaOffset()).containsExactly(2L, 3L, 4L);
        assertThat(writes.get(0).change().document().getString("name").getValue()).isEqualTo("a2");
        assertThat(writes.get(1).change().isDelete()).isTrue();
        assertThat(plan.superseded()).isEqualTo(2);
        assertThat(plan.writeCount()).isEqualTo(3);
    }

    @Test
    void theBareTombstoneAfterAVersionedDeleteLeavesTheVersionedDeleteInPlace() {
        // delete.tombstone=true: write, delete (versioned) and its tombstone (no version) in one batch; the guard
        // could not prove the bare tombstone newer than the stored document, so the versioned delete must survive
        WritePlan plan = WritePlanner.plan(List.of(
                write(SHOP_ORDERS, 1, "a1", ts(10), 0),
                delete(SHOP_ORDERS, 1, ts(11), 1),
                delete(SHOP_ORDERS, 1, null, 2)));

        List<RoutedChange> writes = plan.batches().get(0).writes();
        assertThat(writes).hasSize(1);
        assertThat(writes.get(0).change().isDelete()).isTrue();
        assertThat(writes.get(0).change().version()).isEqualTo(ts(11));
        assertThat(plan.superseded()).isEqualTo(2);
    }

    @Test
    void sameIdInDifferentCollectionsAreDifferentDocuments() {
        WritePlan plan = WritePlanner.plan(List.of(
                write(SHOP_ORDERS, 1, "order", null, 0),
                write(USERS, 1, "user", null, 1)));

        assertThat(plan.batches()).extracting(NamespaceBatch::destination).containsExactly(SHOP_ORDERS, USERS);
        assertThat(plan.superseded()).isZero();
    }

    @Test
    void aLaterRecordWithAnOlderVersionDoesNotWin() {
        WritePlan plan = WritePlanner.plan(List.of(
                write(SHOP_ORDERS, 1, "newer", ts(200), 0),
                write(SHOP_ORDERS, 1, "older", ts(100), 1)));

        RoutedChange only = plan.batches().get(0).writes().get(0);
        assertThat(only.change().document().getString("name").getValue()).isEqualTo("newer");
        assertThat(plan.superseded()).isEqualTo(1);
    }

    @Test
    void equalVersionsKeepArrivalOrder() {
        WritePlan plan = WritePlanner.plan(List.of(
                write(SHOP_ORDERS, 1, "first", ts(100), 0),
                write(SHOP_ORDERS, 1, "second", ts(100), 1)));

        assertThat(plan.batches().get(0).writes().get(0).change().document().getString("name").getValue()).isEqualTo("second");
    }

    @Test
    void chunksHoldAtMostTheChunkSize() {
        List<RoutedChange> changes = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            changes.add(write(SHOP_ORDERS, i, "n" + i, null, i));
        }
        NamespaceBatch batch = WritePlanner.plan(changes).batches().get(0);

        List<List<RoutedChange>> chunks = batch.chunks(1000);
        assertThat(chunks).extracting(List::size).containsExactly(1000, 1000, 500);
        assertThat(chunks.get(2).get(499).change().id()).isEqualTo(new BsonInt32(2499));
        assertThat(batch.chunks(3000)).hasSize(1);
        assertThatThrownBy(() -> batch.chunks(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void emptyBatchPlansNothing() {
        assertThat(WritePlanner.plan(List.of()).batches()).isEmpty();
    }

    @Test
    void aPartialUpdateFoldsOntoTheWholeDocumentBeforeItAndTakesItsVersion() {
        WritePlan plan = WritePlanner.plan(List.of(
                write(SHOP_ORDERS, 1, "a", ts(10), 0),
                update(SHOP_ORDERS, 1, "{updatedFields: {qty: 2}, removedFields: ['name']}", ts(11), 1)));
        RoutedChange only = plan.batches().get(0).writes().get(0);
        assertThat(only.change().isPartial()).isFalse();
        assertThat(only.change().document()).isEqualTo(BsonDocument.parse("{_id: 1, qty: 2}"));
        assertThat(only.change().version()).isEqualTo(ts(11));
        assertThat(only.change().record().kafkaOffset()).isEqualTo(1L);
        assertThat(plan.superseded()).isEqualTo(1);
        assertThat(plan.refused()).isEmpty();
    }

    @Test
    void partialUpdatesOfOneDocumentQueueInOrderAndAWholeDocumentAfterThemReplacesThem() {
        WritePlan plan = WritePlanner.plan(List.of(
                update(SHOP_ORDERS, 1, "{updatedFields: {a: 1}}", ts(10), 0),
                update(SHOP_ORDERS, 1, "{updatedFields: {b: 1}}", ts(11), 1),
                update(SHOP_ORDERS, 2, "{updatedFields: {a: 1}}", ts(10), 2),
                write(SHOP_ORDERS, 2, "whole", ts(12), 3)));
        List<RoutedChange> writes = plan.batches().get(0).writes();
        assertThat(writes.get(0).change().updates()).extracting(d -> d.updatedFields().getFirstKey()).containsExactly("a", "b");
        assertThat(writes.get(0).change().version()).isEqualTo(ts(11));
        assertThat(writes.get(1).change().document().getString("name").getValue()).isEqualTo("whole");
        assertThat(plan.superseded()).isEqualTo(2);
    }

    @Test
    void aPartialUpdateAfterADeleteOrNotFittingTheDocumentBeforeItIsRefusedAndTheEarlierChangeKept() {
        WritePlan plan = WritePlanner.plan(List.of(
                delete(SHOP_ORDERS, 1, ts(10), 0),
                update(SHOP_ORDERS, 1, "{updatedFields: {a: 1}}", ts(11), 1),
                write(SHOP_ORDERS, 2, "b", ts(10), 2),
                update(SHOP_ORDERS, 2, "{updatedFields: {'name.x': 1}}", ts(11), 3),
                write(SHOP_ORDERS, 3, "c", ts(10), 4),
                update(SHOP_ORDERS, 3, "{updatedFields: {a: 1}}", ts(9), 5)));
        List<RoutedChange> writes = plan.batches().get(0).writes();
        assertThat(writes).extracting(rc -> rc.change().record().kafkaOffset()).containsExactly(0L, 2L, 4L);
        assertThat(plan.refused()).extracting(r -> r.change().change().record().kafkaOffset()).containsExactly(1L, 3L);
        assertThat(plan.refused().get(0).reason()).contains("a delete earlier in the same batch");
        assertThat(plan.refused().get(1).reason()).contains("'name' is a STRING");
        assertThat(plan.superseded()).isEqualTo(1); // the older update of 3
    }
}
