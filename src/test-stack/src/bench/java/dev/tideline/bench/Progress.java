package dev.tideline.bench;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Waits for a count (records on a topic, documents written) to reach a target while watching that
 * the work keeps moving, and measures the rate of the steady part: from the first poll that saw
 * progress to the one that saw the target, so a connector's start-up is not counted as throughput.
 */
final class Progress {
    private static final long POLL_MILLIS = 20;
    private static final long FAILURE_CHECK_MILLIS = 1000;

    /** The work stopped moving or its connector failed; the message says where and why. */
    static final class Stalled extends RuntimeException {
        Stalled(String message) {
            super(message);
        }
    }

    /**
     * @param startNanos  when the work was started (connector created)
     * @param firstNanos  the first poll that saw a count above zero
     * @param firstCount  that count
     * @param endNanos    the first poll that saw the target
     * @param endCount    that count (at least the target)
     */
    record Result(long startNanos, long firstNanos, long firstCount, long endNanos, long endCount) {
        /**
         * Per second over the steady part; over the whole run when the first poll already saw most
         * of the work (a very short run), so a fast contender is never credited with an infinite rate.
         */
        double rate() {
            long steady = endCount - firstCount;
            if (steady * 2 >= endCount && endNanos > firstNanos) {
                return Stats.perSecond(steady, endNanos - firstNanos);
            }
            return Stats.perSecond(endCount, endNanos - startNanos);
        }

        Duration elapsed() {
            return Duration.ofNanos(endNanos - startNanos);
        }
    }

    /** Something to do now and then while waiting, e.g. sample the worker's heap. */
    interface Sampler {
        void sample(long count);
    }

    private Progress() {
    }

    /**
     * @param failure     a failed connector's reason, or null while it runs; asked about once a second
     * @param stall       how long the count may stay unchanged before the wait gives up
     * @param sampler     called about every {@code sampleMillis} with the current count (null: none)
     */
    static Result await(String what, long startNanos, LongSupplier count, long target, Duration stall,
                        Supplier<String> failure, Sampler sampler, long sampleMillis) {
        long firstNanos = 0;
        long firstCount = 0;
        long last = -1;
        long lastChange = System.nanoTime();
        long nextFailureCheck = lastChange + FAILURE_CHECK_MILLIS * 1_000_000;
        long nextSample = lastChange;
        while (true) {
            long n = count.getAsLong();
            // the clock after the count: a count (a round trip to the broker) can see records written while it ran, and a
            // clock read before it could end a run before its first read (a 300-document copy: -3 ms, CopyBenchmarkSmokeIT)
            long now = System.nanoTime();
            if (n > 0 && firstNanos == 0) {
                firstNanos = now;
                firstCount = n;
            }
            if (n >= target) {
                return new Result(startNanos, firstNanos, firstCount, now, n);
            }
            if (n != last) {
                last = n;
                lastChange = now;
            } else if (now - lastChange > stall.toNanos()) {
                throw new Stalled(what + " stalled at " + n + " of " + target + " (no progress for " + stall.toSeconds() + " s)");
            }
            if (now >= nextFailureCheck) {
                nextFailureCheck = now + FAILURE_CHECK_MILLIS * 1_000_000;
                String reason = failure.get();
                if (reason != null) {
                    throw new Stalled(what + " failed at " + n + " of " + target + ": " + reason);
                }
            }
            if (sampler != null && now >= nextSample) {
                sampler.sample(n);
                nextSample = System.nanoTime() + sampleMillis * 1_000_000;
            }
            sleep(POLL_MILLIS);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
