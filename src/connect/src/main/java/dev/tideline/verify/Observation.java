package dev.tideline.verify;

import java.util.Objects;

/**
 * One look at an {@code _id} on both sides: each side's {@link DocumentComparison#fingerprint}, or
 * null where the document is absent.
 */
public record Observation(String source, String destination) {
    public boolean equal() {
        return Objects.equals(source, destination);
    }

    /** How the sides differ now: missing, extra or different (meaningless when {@link #equal()}). */
    public FindingKind kind() {
        return source == null ? FindingKind.EXTRA : destination == null ? FindingKind.MISSING : FindingKind.DIFFERENT;
    }
}
