package dev.tideline.sink;

/** Exponential backoff between redeliveries of a batch: initial, doubling, capped; reset by a success. */
final class RetryBackoff {
    private final long initialMs;
    private final long maxMs;
    private long nextMs;
    private int attempts;

    RetryBackoff(long initialMs, long maxMs) {
        this.initialMs = initialMs;
        this.maxMs = maxMs;
        this.nextMs = initialMs;
    }

    /** The wait before the next attempt; doubles the one after. */
    long next() {
        long wait = nextMs;
        nextMs = Math.min(maxMs, nextMs * 2);
        attempts++;
        return wait;
    }

    int attempts() {
        return attempts;
    }

    void reset() {
        nextMs = initialMs;
        attempts = 0;
    }
}
