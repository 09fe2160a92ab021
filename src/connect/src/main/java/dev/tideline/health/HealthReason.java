package dev.tideline.health;

/**
 * Why a task is not {@link HealthState#OK}; each reason carries the state it implies. The roll-up
 * takes the worst: an unreachable server or refused credentials is {@code down}; lost history
 * outranks a retry (stalled beats degraded), because a collection that is being re-copied looks
 * busy and healthy while its changes are not flowing, and that is what an operator must see first.
 */
public enum HealthReason {
    SOURCE_UNREACHABLE(HealthState.DOWN, "source-unreachable"),
    DESTINATION_UNREACHABLE(HealthState.DOWN, "destination-unreachable"),
    AUTH_FAILED(HealthState.DOWN, "auth-failed"),
    /** The change stream could not resume; the collection is being copied again (or the task failed by policy). */
    HISTORY_LOST(HealthState.STALLED, "history-lost"),
    /** A transient error (failover, timeout) is being retried with back-off. */
    RETRYING(HealthState.DEGRADED, "retrying"),
    /** History was lost and policy {@code latest} skipped ahead: changes in the gap were not captured. */
    HISTORY_SKIPPED(HealthState.DEGRADED, "history-skipped"),
    /** A collection stopped for a reason of its own (its control record says why and what to do); the others go on. */
    PARKED(HealthState.DEGRADED, "parked"),
    /** Peer link: records held (refused by the destination, or waiting for long): the link is stuck behind them. */
    HELD_RECORDS(HealthState.STALLED, "held-records"),
    /**
     * Peer link: records were refused to the dead letter queue lately (no valid MAC, malformed, refused by the
     * record safety settings): those changes are not applied on this cluster.
     */
    REFUSED_RECORDS(HealthState.DEGRADED, "refused-records"),
    /** Peer link: changes arrive late (old records queued, round trips slow). */
    LAG(HealthState.DEGRADED, "lag"),
    /** An event too large to send was skipped by policy (its control record names the document). */
    EVENT_SKIPPED(HealthState.DEGRADED, "event-skipped");

    private final HealthState state;
    private final String label;

    HealthReason(HealthState state, String label) {
        this.state = state;
        this.label = label;
    }

    public HealthState state() {
        return state;
    }

    /** The short name used in logs and JMX, e.g. {@code source-unreachable}. */
    public String label() {
        return label;
    }
}
