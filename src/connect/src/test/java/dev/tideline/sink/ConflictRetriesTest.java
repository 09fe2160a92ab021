package dev.tideline.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.sink.write.RecordFailure;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.junit.jupiter.api.Test;

/** Holding writes a unique index refused: bounded, in order, and never past a held record's offset. */
class ConflictRetriesTest {
    private static SinkRecord rec(int partition, long offset) {
        return new SinkRecord("t", partition, null, null, null, null, offset);
    }

    private static RecordFailure conflict(SinkRecord r) {
        return new RecordFailure(r, "E11000 duplicate key", null, true);
    }

    @Test
    void aConflictIsHeldRetriedAheadOfLaterRecordsAndLetGoOnceItLands() {
        ConflictRetries c = new ConflictRetries(1_000);
        SinkRecord b = rec(1, 40);
        SinkRecord later = rec(1, 41);
        assertThat(c.settle(List.of(conflict(b)), 0)).isEmpty();
        assertThat(c.size()).isEqualTo(1);
        assertThat(c.withHeld(List.of(later))).containsExactly(b, later);
        assertThat(c.withHeld(List.of(b, later))).as("a re-delivered batch holds it once").containsExactly(b, later);

        assertThat(c.settle(List.of(conflict(b)), 500)).isEmpty(); // still refused, still in time
        assertThat(c.settle(List.of(), 700)).isEmpty(); // written this time
        assertThat(c.size()).isZero();
        assertThat(c.withHeld(List.of(later))).containsExactly(later);
    }

    @Test
    void aConflictThatOutlivesTheTimeoutIsReportedWithHowLongItWasRetried() {
        ConflictRetries c = new ConflictRetries(1_000);
        SinkRecord b = rec(0, 7);
        c.settle(List.of(conflict(b)), 0);
        c.settle(List.of(conflict(b)), 400);
        List<RecordFailure> report = c.settle(List.of(conflict(b)), 1_000);
        assertThat(report).singleElement().satisfies(f -> assertThat(f.reason())
                .contains("still refused after 2 retries over 1000 ms").contains("duplicate.key.retry.ms=1000"));
        assertThat(c.size()).isZero();
    }

    @Test
    void otherFailuresAreReportedAtOnceAndZeroMeansNoRetry() {
        ConflictRetries c = new ConflictRetries(1_000);
        SinkRecord bad = rec(0, 1);
        assertThat(c.settle(List.of(new RecordFailure(bad, "too large", null)), 0)).hasSize(1);
        assertThat(c.size()).isZero();
        ConflictRetries none = new ConflictRetries(0);
        assertThat(none.settle(List.of(conflict(rec(0, 2))), 0)).singleElement()
                .satisfies(f -> assertThat(f.reason()).isEqualTo("E11000 duplicate key"));
    }

    @Test
    void committedOffsetsStopAtTheFirstHeldRecordOfItsPartitionAndARevokedPartitionIsForgotten() {
        ConflictRetries c = new ConflictRetries(60_000);
        c.settle(List.of(conflict(rec(1, 40)), conflict(rec(1, 45)), conflict(rec(2, 9))), 0);
        Map<TopicPartition, OffsetAndMetadata> current = Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(100),
                new TopicPartition("t", 1), new OffsetAndMetadata(50), new TopicPartition("t", 2), new OffsetAndMetadata(12));
        Map<TopicPartition, OffsetAndMetadata> held = c.holdBack(current);
        assertThat(held.get(new TopicPartition("t", 0)).offset()).isEqualTo(100);
        assertThat(held.get(new TopicPartition("t", 1)).offset()).isEqualTo(40);
        assertThat(held.get(new TopicPartition("t", 2)).offset()).isEqualTo(9);

        c.forget(List.of(new TopicPartition("t", 1)));
        assertThat(c.size()).isEqualTo(1);
        assertThat(c.holdBack(current).get(new TopicPartition("t", 1)).offset()).isEqualTo(50);
    }
}
