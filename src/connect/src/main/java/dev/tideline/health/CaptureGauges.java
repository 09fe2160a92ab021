package dev.tideline.health;

/** What a source task holds while it captures, read by JMX: the bounds the capture keeps whatever the number of collections. */
public interface CaptureGauges {
    /** Change streams open now (one per database the task reads). */
    int changeStreams();

    /** Collections being copied now (at most backfill.max.concurrent). */
    int backfillsRunning();

    /** Collections waiting for their copy. */
    int backfillsQueued();

    /** Collections read through the change streams. */
    int streamedCollections();

    /** Collections the task stopped for a reason of their own (see their health reasons). */
    String[] parkedCollections();

    /** Threads the task started that are alive now (the MongoDB driver's own monitor threads aside). */
    int threads();

    /** Connections the task's MongoDB client holds open now. */
    int mongoConnections();
}
