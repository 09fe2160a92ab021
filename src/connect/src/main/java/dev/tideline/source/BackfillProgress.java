package dev.tideline.source;

import dev.tideline.health.BackfillGauge;

/** Copied / estimated, rate and ETA of one collection's backfill (for logs and metrics). */
public final class BackfillProgress implements BackfillGauge {
    private final long estimatedTotal;
    private final long startedMs;
    private volatile long copied;

    public BackfillProgress(long estimatedTotal, long startedMs) {
        this.estimatedTotal = estimatedTotal;
        this.startedMs = startedMs;
    }

    void copied(int n) {
        copied += n;
    }

    @Override
    public long copied() {
        return copied;
    }

    @Override
    public long estimatedTotal() {
        return estimatedTotal;
    }

    /** Documents per second since this run of the backfill started. */
    @Override
    public double rate(long nowMs) {
        double secs = Math.max(0.001, (nowMs - startedMs) / 1000.0);
        return copied / secs;
    }

    /** Seconds left at the current rate, or -1 when unknown. */
    @Override
    public long etaSeconds(long nowMs) {
        double rate = rate(nowMs);
        if (rate <= 0 || estimatedTotal <= copied) {
            return copied >= estimatedTotal ? 0 : -1;
        }
        return Math.round((estimatedTotal - copied) / rate);
    }

    public String describe() {
        long now = System.currentTimeMillis();
        return String.format("copied %d / ~%d, %.0f docs/s, ETA %ds", copied, estimatedTotal, rate(now), etaSeconds(now));
    }
}
