package dev.tideline.verify;

import java.util.Collection;

/** The verdict of a run and its exit code; a run's outcome is the worst of its collections'. */
public enum Outcome {
    /** Every document compared equal (after re-checks). */
    EQUAL("equal", 0),
    /** Some ids are missing, extra or different, and stayed so across a re-check with nothing moving. */
    DIFFERS("differs", 1),
    /** Nothing proven different, but some ids were still changing at the last re-check (writes in flight). */
    UNSETTLED("unsettled", 2),
    /** Verify could not compare everything (a server error, a bad argument): the report is incomplete. */
    FAILED("failed", 3);

    private final String wireName;
    private final int exitCode;

    Outcome(String wireName, int exitCode) {
        this.wireName = wireName;
        this.exitCode = exitCode;
    }

    public String wireName() {
        return wireName;
    }

    public int exitCode() {
        return exitCode;
    }

    /** FAILED beats DIFFERS beats UNSETTLED beats EQUAL: a proven difference outranks writes still in flight. */
    public static Outcome worst(Collection<Outcome> outcomes) {
        Outcome worst = EQUAL;
        for (Outcome o : outcomes) {
            if (severity(o) > severity(worst)) {
                worst = o;
            }
        }
        return worst;
    }

    private static int severity(Outcome o) {
        return switch (o) {
            case EQUAL -> 0;
            case UNSETTLED -> 1;
            case DIFFERS -> 2;
            case FAILED -> 3;
        };
    }
}
