package dev.tideline.health;

/** JMX view of one captured collection: {@code dev.tideline:type=source-task,connector=X,task=N,collection=db.coll}. */
public interface SourceCollectionMetricsMBean {
    String getPhase();

    long getEvents();

    double getEventsPerSecond();

    /** Cluster time of the last change handed to Kafka, ISO-8601; empty before the first. */
    String getLastEventClusterTime();

    /** Now minus the last change's cluster time, in ms; -1 before the first change. */
    long getLagMillis();

    long getBackfillCopied();

    long getBackfillEstimatedTotal();

    double getBackfillDocsPerSecond();

    /** Seconds left at the current rate; 0 when done or not backfilling, -1 when unknown. */
    long getBackfillEtaSeconds();

    long getHeartbeats();

    long getRetries();

    long getLostHistoryEvents();

    String getHealth();

    String[] getHealthReasons();
}
