package dev.tideline.health;

/** JMX view of a sink task: {@code dev.tideline:type=sink-task,connector=X,task=N,destination=D}. */
public interface SinkTaskMetricsMBean {
    String getHealth();

    String[] getHealthReasons();

    /** Records whose write the destination accepted. */
    long getRecordsApplied();

    double getRecordsAppliedPerSecond();

    /** Batches handed back to Connect for re-delivery after a transient failure. */
    long getRetries();

    /** Changes the stale-write guard skipped: older than the version the destination already holds (docs/sink-safety.md). */
    long getStaleSkipped();

    /** Records refused and skipped with errors.tolerance=all: sent to the dead letter queue, or only logged where none is configured. */
    long getDeadLetterRecords();

    /** Source time of the newest record applied (its Kafka timestamp: the change's wall time), ISO-8601; empty before the first. */
    String getLastAppliedEventTime();

    /** Now minus {@link #getLastAppliedEventTime()}, in ms; -1 before the first record. */
    long getLagMillis();
}
