package dev.tideline.health;

/** JMX view of a source task: {@code dev.tideline:type=source-task,connector=X,task=N}; per collection below it. */
public interface SourceTaskMetricsMBean {
    /** ok, degraded, stalled or down: the roll-up over the task's collections. */
    String getHealth();

    /** {@code "<db.coll>: <reason>"}, worst first; empty when ok. */
    String[] getHealthReasons();

    String[] getCollections();

    long getEvents();

    double getEventsPerSecond();

    /** The largest lag of the task's collections that have seen a change, in ms; -1 when none has. */
    long getMaxLagMillis();

    long getRetries();

    long getLostHistoryEvents();
}
