package dev.tideline.source.scan;

import dev.tideline.bson.DottedPath;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import dev.tideline.event.Namespace;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.config.CaptureSettings.InitialSync;
import java.time.Instant;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Where the scan of a collection WITHOUT a stored offset starts, per {@code initial.sync}: the
 * I/O half of {@link ScanQueries#initialCursor} (one find sorted descending, limit 1, for
 * {@code latest}). Both cursors start together: {@code skip} and a date also skip older delete
 * markers, {@code latest} starts after the newest marker, {@code full} reads every marker.
 */
public final class ScanStart {
    private ScanStart() {
    }

    /**
     * @param now the current time, the server's where the caller knows it ({@code localTime} of
     *            {@code isMaster}), else the worker's: {@code skip} starts at {@code key >= now}
     */
    public static SourceOffset offset(MongoClient client, Namespace ns, ScanPlan plan, InitialSync initialSync, Instant now) {
        ScanCursor latestDocument = null;
        ScanCursor latestMarker = null;
        if (initialSync.kind() == InitialSync.Kind.LATEST) {
            MongoCollection<BsonDocument> documents = client.getDatabase(ns.db()).getCollection(ns.coll(), BsonDocument.class);
            BsonDocument last = documents.find(ScanQueries.incremental(plan.key(), null, null))
                    .sort(ScanQueries.sortDescending(plan.key())).limit(1).first();
            latestDocument = last == null ? null : ScanCursor.after(DottedPath.get(last, plan.key()), last.get(ScanQueries.ID));
            MongoCollection<BsonDocument> markers = client.getDatabase(ns.db()).getCollection(plan.deleteMarkerCollection(), BsonDocument.class);
            BsonDocument lastMarker = markers.find(ScanQueries.deleteMarkers(ns.coll(), null))
                    .sort(ScanQueries.sortDescending(ScanQueries.MARKER_DELETED_AT)).limit(1).first();
            latestMarker = lastMarker == null ? null
                    : ScanCursor.after(lastMarker.get(ScanQueries.MARKER_DELETED_AT), lastMarker.get(ScanQueries.ID));
        }
        ScanCursor documents = ScanQueries.initialCursor(initialSync, now, latestDocument);
        ScanCursor markers = ScanQueries.initialCursor(initialSync, now, latestMarker);
        return SourceOffset.scan(value(documents), id(documents), value(markers), id(markers));
    }

    private static BsonValue value(ScanCursor c) {
        return c == null ? null : c.value();
    }

    private static BsonValue id(ScanCursor c) {
        return c == null ? null : c.id();
    }
}
