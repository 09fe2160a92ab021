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

    /** The signal {@code _id} of the repair running now (docs/repair.md); empty when none. */
    String getRepairRunning();

    /** Repairs finished since the task started. */
    long getRepairsDone();

    /** Documents repairs copied again (sent at their high watermark) since the task started. */
    long getRepairDocumentsCopied();

    /** Listed ids repairs found gone at the source and sent as deletes since the task started. */
    long getRepairDocumentsDeleted();

    long getHeartbeats();

    long getRetries();

    long getLostHistoryEvents();

    String getHealth();

    String[] getHealthReasons();
}
