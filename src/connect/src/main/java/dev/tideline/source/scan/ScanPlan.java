package dev.tideline.source.scan;

import dev.tideline.event.Namespace;
import dev.tideline.source.config.ScanSettings;
import java.util.Objects;

/**
 * How one collection is scanned: the settings of {@link ScanSettings} resolved for that collection,
 * as plain values (so tests and callers need no Connect config to build one).
 *
 * @param key                    the document field ordered by (per-collection {@code scan.keys} or {@code scan.key})
 * @param lookbackMs             how far each pass re-reads behind the cursor (date keys only); 0 = none
 * @param intervalMs             pause after a pass that found nothing new
 * @param createIndex            create {@code {key:1,_id:1}} and the marker index
 * @param deleteMarkerCollection the marker collection in the same database
 * @param batchSize              documents (and markers) per find
 */
public record ScanPlan(String key, long lookbackMs, long intervalMs, boolean createIndex,
                       String deleteMarkerCollection, int batchSize) {
    public ScanPlan {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(deleteMarkerCollection, "deleteMarkerCollection");
        if (key.isEmpty() || deleteMarkerCollection.isEmpty()) {
            throw new IllegalArgumentException("scan key and delete-marker collection must not be empty");
        }
        if (lookbackMs < 0 || intervalMs < 0 || batchSize < 1) {
            throw new IllegalArgumentException("lookbackMs and intervalMs must be >= 0 and batchSize >= 1, got "
                    + lookbackMs + ", " + intervalMs + ", " + batchSize);
        }
    }

    /** The plan of {@code ns} under the connector's settings ({@code batch.size} comes from CaptureSettings). */
    public static ScanPlan of(ScanSettings settings, Namespace ns, int batchSize) {
        return new ScanPlan(settings.keyFor(ns), settings.lookbackMs(), settings.intervalMs(), settings.createIndex(),
                settings.deleteMarkerCollection(), batchSize);
    }
}
