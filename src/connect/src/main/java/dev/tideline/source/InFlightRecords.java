package dev.tideline.source;

/**
 * Records handed to Connect by {@code poll()} and not yet acknowledged ({@code commitRecord}), with a
 * bound: the heap a draining task makes the worker hold. Connect keeps each record until Kafka
 * acknowledges it, and the producer keeps its bytes; a task that hands over changes faster than the
 * broker acknowledges them would otherwise fill the producer's whole {@code buffer.memory} (and the
 * heap with twice that). Connect calls {@code commitRecord} once for every record a poll returned:
 * acknowledged, dropped by a transformation, or failed under {@code errors.tolerance=all}.
 * Thread-safe: acknowledgements arrive on the producer's thread.
 */
final class InFlightRecords {
    private final int max;
    private int count;

    InFlightRecords(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("the bound must be at least 1, got " + max);
        }
        this.max = max;
    }

    /** Waits at most {@code timeoutMs} until fewer than the bound are in flight; false when still at the bound. */
    synchronized boolean awaitRoom(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (count >= max) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000L));
        }
        return true;
    }

    synchronized void handedOver(int records) {
        count += records;
    }

    synchronized void acknowledged() {
        count = Math.max(0, count - 1);
        if (count < max) {
            notifyAll();
        }
    }

    synchronized int count() {
        return count;
    }
}
