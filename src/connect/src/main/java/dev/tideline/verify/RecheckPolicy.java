package dev.tideline.verify;

/**
 * Tells a real difference from a write in flight. A candidate is read again on both sides after a delay:
 *
 * <ul>
 *   <li>equal now: {@code SETTLED}, the pipeline caught up (or the source changed it back);</li>
 *   <li>still different, and NEITHER side changed since the previous look: {@code DIFFERENT}: the
 *       pipeline had the whole delay to apply it and nothing moved, so it is not in flight;</li>
 *   <li>still different and a side changed (or there is no previous look to compare with):
 *       {@code UNSETTLED}, look again; after the last round it is reported as in flight.</li>
 * </ul>
 * The delay must exceed the pipeline's lag (the sink's {@code LagMillis}), or a slow but moving
 * pipeline looks stable: the docs say so.
 */
public final class RecheckPolicy {
    public enum Verdict { SETTLED, DIFFERENT, UNSETTLED }

    private RecheckPolicy() {
    }

    /** @param previous the last look (null when the first look gave no fingerprints, as server hashing does) */
    public static Verdict judge(Observation previous, Observation now) {
        if (now.equal()) {
            return Verdict.SETTLED;
        }
        if (previous != null && previous.equals(now)) {
            return Verdict.DIFFERENT;
        }
        return Verdict.UNSETTLED;
    }
}
