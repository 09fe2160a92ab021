package dev.tideline.sink;

import static dev.tideline.sink.TestRecords.SHOP_ORDERS;
import static dev.tideline.sink.TestRecords.doc;
import static dev.tideline.sink.TestRecords.envelopeRecord;
import static dev.tideline.sink.TestRecords.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.EventHeaders;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The changes of one MongoDB transaction share its commit's cluster time, so their versions are equal: the sink
 * must apply them in the order they arrive (the order of the transaction's operations, per partition) and the
 * stale-write guard must take none of them for stale, whatever the batch boundaries and however often Connect
 * re-delivers them.
 */
class TransactionApplyTest {
    private static final int COMMIT = 50;
    private final DestinationServer destination = new DestinationServer();

    @AfterEach
    void close() {
        destination.close();
    }

    private static SinkRecord change(long offset, Op op, int id, String name, int clusterSeconds) {
        return envelopeRecord("orders-topic", offset, event(op, SHOP_ORDERS, id, op == Op.DELETE ? null : doc(id, name),
                clusterSeconds), ValueFormat.BSON);
    }

    /** Document 2 written before the transaction, then the transaction's six operations, all at one cluster time. */
    private static List<SinkRecord> records() {
        return List.of(
                change(0, Op.INSERT, 2, "before", COMMIT - 10),
                change(1, Op.INSERT, 1, "a", COMMIT),
                change(2, Op.UPDATE, 1, "b", COMMIT),
                change(3, Op.DELETE, 2, null, COMMIT),
                change(4, Op.INSERT, 2, "c", COMMIT),
                change(5, Op.UPDATE, 1, "d", COMMIT),
                change(6, Op.INSERT, 3, "e", COMMIT));
    }

    private BsonDocument find(int id) {
        return destination.client.getDatabase("dest").getCollection("orders", BsonDocument.class)
                .find(new BsonDocument("_id", new BsonInt32(id))).first();
    }

    private void assertTheTransactionsOutcome() {
        assertThat(find(1)).isEqualTo(doc(1, "d"));
        assertThat(find(2)).as("deleted then inserted again in the transaction").isEqualTo(doc(2, "c"));
        assertThat(find(3)).isEqualTo(doc(3, "e"));
    }

    @Test
    void inOneBatch() {
        BatchOutcome out = destination.applier(Map.of()).apply(records());
        assertThat(out.stale()).isZero();
        assertTheTransactionsOutcome();
    }

    @Test
    void oneRecordPerBatchNoneTakenForStale() {
        assertOneRecordPerBatchNoneTakenForStale(records());
    }

    private void assertOneRecordPerBatchNoneTakenForStale(List<SinkRecord> records) {
        BatchApplier applier = destination.applier(Map.of());
        long stale = 0;
        for (SinkRecord r : records) {
            stale += applier.apply(List.of(r)).stale();
        }
        assertThat(stale).isZero();
        assertTheTransactionsOutcome();
    }

    @Test
    void reDeliveredFromTheMiddleOfTheTransactionAfterItWasApplied() {
        BatchApplier applier = destination.applier(Map.of());
        applier.apply(records());
        // Connect re-delivers from the last committed offset, here inside the transaction, in two batches
        List<SinkRecord> again = new ArrayList<>(records().subList(3, 7));
        applier.apply(again.subList(0, 1)); // the delete of 2 alone: equal version, applied again
        applier.apply(again.subList(1, 4));
        assertTheTransactionsOutcome();
    }

    /** {@link #records()} as the source sends them: the transaction's changes with its identity and each one's index. */
    private static List<SinkRecord> recordsWithTheirIndexes() {
        List<SinkRecord> records = records();
        for (int i = 1; i < records.size(); i++) {
            records.get(i).headers().addString(EventHeaders.TRANSACTION, "5f0c3a52-3b1e-4d07-9d2e-1c7b3e1f0a11:7")
                    .addString(EventHeaders.TRANSACTION_OP, Integer.toString(i - 1));
        }
        return records;
    }

    @Test
    void reDeliveredFromTheMiddleTheEarlierChangeOfADocumentIsRefusedAsStale() {
        BatchApplier applier = destination.applier(Map.of());
        applier.apply(recordsWithTheirIndexes());
        assertThat(find(1)).isEqualTo(doc(1, "d"));

        // Connect re-delivers from inside the transaction: the update of 1 to "b" (index 1) comes back alone first
        List<SinkRecord> again = recordsWithTheirIndexes().subList(2, 7);
        BatchOutcome first = applier.apply(again.subList(0, 1));
        assertThat(first.stale()).isEqualTo(1);
        assertThat(find(1)).as("the later change (index 4) stays; the re-delivered earlier one must not overwrite it")
                .isEqualTo(doc(1, "d"));
        BatchOutcome second = applier.apply(again.subList(1, 3)); // the delete of 2 (index 2) and its re-insert (index 3)
        assertThat(second.stale()).as("equal indexes apply again").isZero();
        applier.apply(again.subList(3, 5));
        assertTheTransactionsOutcome();
    }

    @Test
    void withTheirIndexesOneRecordPerBatchNoneTakenForStale() {
        assertOneRecordPerBatchNoneTakenForStale(recordsWithTheirIndexes());
    }

    @Test
    void anIndexThatIsNotOneGoesToTheDeadLetterQueueWithTheReason() {
        BatchApplier applier = destination.applier(Map.of());
        SinkRecord forged = change(1, Op.INSERT, 1, "a", COMMIT);
        forged.headers().addString(EventHeaders.TRANSACTION_OP, "-1");
        BatchOutcome out = applier.apply(List.of(forged));
        assertThat(out.failures()).singleElement().satisfies(f -> assertThat(f.reason()).contains(EventHeaders.TRANSACTION_OP)
                .contains("not a decimal integer from 0 to 2147483647"));
        assertThat(find(1)).isNull();
    }
}
