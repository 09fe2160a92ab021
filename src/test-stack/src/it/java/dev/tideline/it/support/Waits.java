package dev.tideline.it.support;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The integration tests' waits, on Awaitility. What Awaitility lacks and the tests want: the failure
 * is an {@link AssertionError} that says what was awaited and the last value the probe saw (the
 * connector's status JSON, the count reached, ...), and the waited-for value is returned.
 *
 * <p>The probe runs on the calling thread (it often uses a client that is not thread-safe: a Kafka
 * consumer, a browser session), first at once and then every {@code poll}. An exception from the
 * probe ends the wait at once (a probe that fails fast on a FAILED task throws); a probe that must
 * ride out errors catches them and returns what it saw. Exceptions other threads leave uncaught
 * (the stack's load generators, the clients' I/O threads) do not fail a wait: they are not what is
 * awaited.
 */
public final class Waits {
    private Waits() {
    }

    /** A check that fails by throwing (an AssertionError, or whatever its probe throws). */
    @FunctionalInterface
    public interface Check {
        void run() throws Exception;
    }

    /** Awaitility as these tests use it: probe on the calling thread at once, then every {@code poll}. */
    public static ConditionFactory await(String what, Duration timeout, Duration poll) {
        return (what == null ? Awaitility.await() : Awaitility.await(what))
                .atMost(timeout)
                .pollDelay(Duration.ZERO)
                .pollInterval(poll)
                .pollInSameThread()
                .dontCatchUncaughtExceptions();
    }

    /**
     * Polls {@code probe} until {@code done} accepts what it returns, and returns that. After
     * {@code timeout}: AssertionError "{@code what} not reached within {@code timeout}; last seen: ...".
     */
    public static <T> T until(String what, Duration timeout, Duration poll, Callable<T> probe, Predicate<? super T> done) {
        return until(timeout, poll, probe, done,
                last -> what + " not reached within " + timeout + "; last seen: " + last);
    }

    /**
     * Polls {@code probe} until {@code done} accepts what it returns, and returns that. After
     * {@code timeout}: AssertionError with {@code failure} of the last value seen (null if the probe
     * never returned one).
     */
    public static <T> T until(Duration timeout, Duration poll, Callable<T> probe, Predicate<? super T> done,
                              Function<? super T, String> failure) {
        AtomicReference<T> last = new AtomicReference<>();
        try {
            await(null, timeout, poll).until(() -> {
                T seen = probe.call();
                last.set(seen);
                return done.test(seen);
            });
            return last.get();
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(failure.apply(last.get()), e);
        }
    }

    /**
     * Checks {@code check} every {@code poll} for {@code period} and fails at the first check that fails: for
     * something that must stay so for a while ("z stays absent while ..."). Like {@link #quietPeriod} a
     * bounded window for a negative claim, but watched throughout instead of looked at once at its end.
     */
    public static void holdsThroughout(String what, Duration period, Duration poll, Check check) {
        long start = System.nanoTime();
        // an AssertionError from the check ends the wait at once; the margin is for a slow last check only
        Duration atMost = period.plus(poll).plusSeconds(5);
        try {
            await(what + " throughout " + period, atMost, poll).until(() -> {
                check.run();
                return System.nanoTime() - start >= period.toNanos();
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("checking " + what + " throughout " + period + " took over " + atMost + " (checks too slow)", e);
        }
    }

    /**
     * A pause that is not a wait: pacing (a workload's rate, the time at which a round injects its fault), a
     * fault's own length (how long the broker or the source stays down), or a clock margin (the next writes in a
     * later cluster second). Say which in {@code why}. Waiting for something to happen is {@link #until}.
     */
    public static void pause(Duration length, String why) {
        if (why == null || why.isBlank()) {
            throw new IllegalArgumentException("say what the pause is for");
        }
        if (length.isNegative() || length.isZero()) {
            return;
        }
        sleep(length, "a pause (" + why + ")");
    }

    /**
     * A quiet period: lets {@code period} pass so that something that must NOT happen had its chance
     * to. For negative checks only ("nothing more arrives", "no second write"): there is no state to
     * observe for something that does not happen, so the check after a bounded quiet period is the
     * honest one. Never use it to wait for something that does happen: wait for that with
     * {@link #until}.
     */
    public static void quietPeriod(Duration period, String why) {
        if (why == null || why.isBlank()) {
            throw new IllegalArgumentException("say what the quiet period gives the chance to happen");
        }
        sleep(period, "the quiet period (" + why + ")");
    }

    private static void sleep(Duration length, String during) {
        try {
            Thread.sleep(length.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + during, e);
        }
    }
}
