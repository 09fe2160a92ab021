package dev.tideline.health;

/** How a task (or one of its collections) is doing, from best to worst: the order is the severity. */
public enum HealthState {
    /** Working, nothing to report. */
    OK,
    /** Working, but retrying or otherwise below par: changes still flow or will once the retry succeeds. */
    DEGRADED,
    /** Changes are NOT flowing for a reason that will not pass by itself soon (lost history being re-copied). */
    STALLED,
    /** Cannot work at all: the server is unreachable or refuses the credentials. */
    DOWN;

    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
