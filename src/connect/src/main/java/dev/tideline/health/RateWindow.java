package dev.tideline.health;

/**
 * Events per second over the last {@link #SECONDS} whole seconds, in one-second buckets. Reading it
 * changes nothing, so any number of JMX clients see the same figure. The clock is passed in: pure.
 */
public final class RateWindow {
    public static final int SECONDS = 10;

    private final long[] counts = new long[SECONDS + 1];
    private final long[] bucketSecond = new long[SECONDS + 1];

    public synchronized void record(long n, long nowMs) {
        long second = nowMs / 1000;
        int i = (int) (second % counts.length);
        if (bucketSecond[i] != second) {
            bucketSecond[i] = second;
            counts[i] = 0;
        }
        counts[i] += n;
    }

    /** The mean rate over the last {@link #SECONDS} complete seconds (the current one is still filling). */
    public synchronized double perSecond(long nowMs) {
        long current = nowMs / 1000;
        long total = 0;
        for (int i = 0; i < counts.length; i++) {
            long age = current - bucketSecond[i];
            if (age >= 1 && age <= SECONDS) {
                total += counts[i];
            }
        }
        return total / (double) SECONDS;
    }
}
