package dev.tideline.peer.sink;

/**
 * JMX view of a peer sink task, this cluster's side of a peer link: {@code dev.tideline:type=peer-sink,connector=X,task=0}.
 * The same figures as its status document (docs/peer-replication.md), as of the task's last {@code put}.
 */
public interface PeerLinkMetricsMBean {
    /** ok, degraded, stalled or down. */
    String getHealth();

    String[] getHealthReasons();

    /** The longest of the last round trips measured through each peer (heartbeat written here, seen back), ms; -1 before the first. */
    long getRoundTripLagMillis();

    /** Now minus the Kafka timestamp of the newest record received, ms; -1 before the first. */
    long getApplyLagMillis();

    /** Records received and waiting in the task's queue to be applied. */
    int getQueuedRecords();

    /** Documents with a held record: refused by the destination, or waiting for this cluster's own stamp or delete. */
    int getHeldDocuments();

    /** Records received since the task started. */
    long getRecordsReceived();

    /** Concurrent writes of one document at both sides, decided by last-writer-wins, since the task started. */
    long getConflictsResolved();

    /** Records sent to the dead letter queue because they carried no stamp or delete MAC. */
    long getRefusedMissingMac();

    /** Records sent to the dead letter queue because their stamp or delete MAC did not verify with the link's key. */
    long getRefusedBadMac();

    /** Records sent to the dead letter queue because they could not be read as a peer change. */
    long getRefusedMalformed();

    /** Records sent to the dead letter queue by the sink's front end (size, signature, namespace policy, ids, documents). */
    long getRefusedByPolicy();
}
