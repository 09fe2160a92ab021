package dev.tideline.source;

import dev.tideline.health.SourceCollectionMetrics;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.capture.Captured;
import java.util.List;
import java.util.Locale;

/**
 * Translates what a capture does into its collection's metrics and health, so that
 * {@link CollectionCapture} needs one call per event of interest.
 */
final class CaptureMetrics {
    private final SourceCollectionMetrics metrics;

    CaptureMetrics(SourceCollectionMetrics metrics) {
        this.metrics = metrics;
    }

    void published(List<Captured> batch) {
        int changes = 0;
        int heartbeats = 0;
        long clusterTime = -1;
        for (Captured c : batch) {
            if (c instanceof Captured.Change change) {
                changes++;
                if (change.event().clusterTime() != null) {
                    clusterTime = change.event().clusterTime().getTime() & 0xFFFFFFFFL;
                }
            } else if (c instanceof Captured.Heartbeat) {
                heartbeats++;
            }
        }
        metrics.published(changes, heartbeats, clusterTime, System.currentTimeMillis());
        metrics.position(batch.get(batch.size() - 1).offset().toMap());
    }

    void opened(StartPlanner.Phase phase, BackfillProgress backfill) {
        metrics.opened(phase.name().toLowerCase(Locale.ROOT), backfill);
    }

    /** This task copied its chunks of a split copy of a collection another task captures. */
    void chunksCopied() {
        metrics.opened("chunks-copied", null);
    }

    /** The backfill is done and the stream takes over: a re-copy after lost history is complete. */
    void streaming() {
        metrics.streaming();
    }

    void failed(ErrorClass kind, RuntimeException e) {
        switch (kind) {
            case RETRIABLE -> metrics.retrying(MongoErrors.isUnreachable(e));
            case AUTH -> metrics.authFailed();
            default -> {
                // history lost is reported with the policy's decision (historyLost); other failures park the collection
            }
        }
    }

    void historyLost(boolean recopying) {
        metrics.historyLost(recopying);
    }

    /** The collection stopped for a reason of its own (health degraded, naming it). */
    void parked() {
        metrics.parked();
    }

    void repairStarted(String signal) {
        metrics.repairStarted(signal);
    }

    void repairChunk(long copied, long deleted) {
        metrics.repairChunk(copied, deleted);
    }

    void repairEnded(boolean done) {
        metrics.repairEnded(done);
    }

    /** An event of the collection was skipped by policy (health degraded, naming it). */
    void eventSkipped() {
        metrics.eventSkipped();
    }
}
