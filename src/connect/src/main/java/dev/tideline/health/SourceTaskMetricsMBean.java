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

    /** Change streams open now: one per database the task reads, whatever the number of collections. */
    int getChangeStreams();

    /** Collections being copied now (at most backfill.max.concurrent). */
    int getBackfillsRunning();

    /** Collections waiting for their copy. */
    int getBackfillsQueued();

    /** Collections read through the change streams. */
    int getStreamedCollections();

    /** Collections stopped for a reason of their own (their health reasons and control records say which). */
    String[] getParkedCollections();

    /** Threads the task started that are alive now (the MongoDB driver's monitor threads aside). */
    int getThreads();

    /** Connections the task's MongoDB client holds open now. */
    int getMongoConnections();
}
