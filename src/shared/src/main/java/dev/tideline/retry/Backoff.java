package dev.tideline.retry;

/** Exponential back-off: initial, doubling, capped (seed 000: reopen after 1 s, doubling up to 30 s). */
public final class Backoff {
    private final long initialMs;
    private final long maxMs;
    private long nextMs;
    private int attempts;

    public Backoff(long initialMs, long maxMs) {
        this.initialMs = initialMs;
        this.maxMs = maxMs;
        this.nextMs = initialMs;
    }

    /** The delay to wait now; the next one doubles. */
    public long next() {
        long d = nextMs;
        nextMs = Math.min(maxMs, nextMs * 2);
        attempts++;
        return d;
    }

    public int attempts() {
        return attempts;
    }

    public void reset() {
        nextMs = initialMs;
        attempts = 0;
    }
}
