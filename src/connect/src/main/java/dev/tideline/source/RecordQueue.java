package dev.tideline.source;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Hands batches from the capture threads to {@code poll()}. Bounded, so a slow Kafka slows the readers
 * instead of growing the heap; a capture that fails for good leaves its error here for poll to raise.
 */
final class RecordQueue {
    private final BlockingQueue<List<SourceRecord>> batches;
    private volatile RuntimeException failure;

    RecordQueue(int capacityInBatches) {
        this.batches = new ArrayBlockingQueue<>(capacityInBatches);
    }

    void put(List<SourceRecord> batch) throws InterruptedException {
        batches.put(batch);
    }

    void fail(RuntimeException e) {
        if (failure == null) {
            failure = e;
        }
    }

    /**
     * Up to about {@code maxRecords} records, waiting at most {@code timeoutMs} for the first batch.
     *
     * @return null when nothing arrived (Connect's convention for an idle poll)
     */
    List<SourceRecord> poll(long timeoutMs, int maxRecords) throws InterruptedException {
        RuntimeException f = failure;
        if (f != null) {
            throw f instanceof ConnectException ? f : new ConnectException(f.getMessage(), f);
        }
        List<SourceRecord> first = batches.poll(timeoutMs, TimeUnit.MILLISECONDS);
        if (first == null) {
            return null;
        }
        List<SourceRecord> out = new ArrayList<>(first);
        List<SourceRecord> more;
        while (out.size() < maxRecords && (more = batches.poll()) != null) {
            out.addAll(more);
        }
        return out;
    }
}
