package dev.tideline.health;

/** A running backfill as metrics see it (implemented by the source's progress counter). */
public interface BackfillGauge {
    long copied();

    long estimatedTotal();

    /** Documents per second since this run of the backfill started. */
    double rate(long nowMs);

    /** Seconds left at the current rate; 0 when done, -1 when unknown. */
    long etaSeconds(long nowMs);
}
