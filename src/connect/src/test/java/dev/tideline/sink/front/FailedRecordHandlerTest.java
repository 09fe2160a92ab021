package dev.tideline.sink.front;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.sink.write.RecordFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.Test;

class FailedRecordHandlerTest {
    private final List<Throwable> reported = new ArrayList<>();

    private SinkTaskContext context(boolean withReporter, boolean oldWorker) {
        ErrantRecordReporter reporter = (record, error) -> {
            reported.add(error);
            return CompletableFuture.completedFuture(null);
        };
        return new SinkTaskContext() {
            @Override public Map<String, String> configs() { return Map.of(); }
            @Override public void offset(Map<TopicPartition, Long> offsets) { }
            @Override public void offset(TopicPartition tp, long offset) { }
            @Override public void timeout(long timeoutMs) { }
            @Override public Set<TopicPartition> assignment() { return Set.of(); }
            @Override public void pause(TopicPartition... partitions) { }
            @Override public void resume(TopicPartition... partitions) { }
            @Override public void requestCommit() { }
            @Override public ErrantRecordReporter errantRecordReporter() {
                if (oldWorker) {
                    throw new NoSuchMethodError("SinkTaskContext.errantRecordReporter");
                }
                return withReporter ? reporter : null;
            }
        };
    }

    private static List<RecordFailure> failures() {
        return List.of(
                new RecordFailure(new SinkRecord("orders", 2, null, null, null, null, 41), "code 11000: E11000 duplicate key", null),
                new RecordFailure(new SinkRecord("orders", 2, null, null, null, null, 43), "malformed record: bad JSON", null));
    }

    @Test
    void defaultToleranceFailsTheTaskNamingTopicPartitionOffsetAndCode() {
        FailedRecordHandler handler = new FailedRecordHandler(context(true, false), false);
        assertThatThrownBy(() -> handler.handle(failures())).isInstanceOf(ConnectException.class)
                .hasMessageContaining("topic orders, partition 2, offset 41").hasMessageContaining("code 11000")
                .hasMessageContaining("1 more");
        assertThat(reported).isEmpty();
    }

    @Test
    void toleranceAllReportsEveryFailureWithItsReason() {
        new FailedRecordHandler(context(true, false), true).handle(failures());
        assertThat(reported).hasSize(2);
        assertThat(reported.get(1)).hasMessageContaining("offset 43").hasMessageContaining("bad JSON");
    }

    @Test
    void missingReporterOrOldWorkerOnlyLogs() {
        new FailedRecordHandler(context(false, false), true).handle(failures());
        new FailedRecordHandler(context(true, true), true).handle(failures());
        assertThat(reported).isEmpty();
    }
}
