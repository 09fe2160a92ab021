package dev.tideline.source.scan;

import dev.tideline.bson.DottedPath;
import dev.tideline.log.LogText;
import dev.tideline.mongo.BsonOrder;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionReader;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.config.ScanSettings;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The date scan of one collection, for servers that cannot serve a change stream.
 *
 * <p>Each call to {@link #next()} reads at most one batch of documents, by
 * {@code (key > v) or (key = v and _id > id)} in {@code (key, _id)} order, and one batch of the
 * collection's delete markers, by {@code (deletedAt, _id)}. Documents become {@link Op#READ} events,
 * markers {@link Op#DELETE} events; every item carries BOTH cursors, so committing any item's offset
 * commits a consistent position. A pass runs until both reads come back short; when a pass found
 * nothing new, {@code next()} returns an empty list and the caller asks again after
 * {@link ScanPlan#intervalMs()} (a task scans its collections on a few shared threads).
 *
 * <p>Reads use {@code find} with a batch size and a limit: the server returns bounded batches and the
 * scan resumes from its last key, whatever the collection's size.
 *
 * <p>Lookback (date keys): each pass starts {@code lookbackMs} behind the cursor; the offsets never
 * move backwards, and {@link LookbackMemory} keeps this run from re-emitting what it already sent.
 *
 * <p>Usage from a capture loop:
 * <pre>
 * ScanPlan plan = ScanPlan.of(config.scan(), ns, config.capture().batchSize());
 * SourceOffset start = stored != null ? stored
 *         : ScanStart.offset(client, ns, plan, config.capture().initialSync(), serverNow);
 * try (ScanReader reader = new ScanReader(client, ns, plan, config.capture().filterFor(ns), start, Clock.systemUTC())) {
 *     while (running) { for (Captured c : reader.next()) { ... } }
 * }
 * </pre>
 * The reader does not own the client: {@link #close()} leaves it open. Not thread-safe (one thread at a
 * time). Driver exceptions are thrown as they come, for the loop to classify.
 */
public final class ScanReader implements CollectionReader {
    private static final Logger log = LoggerFactory.getLogger(ScanReader.class);

    private final Namespace ns;
    private final ScanPlan plan;
    private final BsonDocument filter;
    private final Clock clock;
    private final MongoCollection<BsonDocument> documents;
    private final MongoCollection<BsonDocument> markers;
    private final LookbackMemory memory = new LookbackMemory();

    /** The furthest document position emitted: what offsets carry. Never moves back. */
    private ScanCursor emitted;
    /** The delete-marker position: what offsets carry. */
    private ScanCursor deletes;
    /** Where the current pass continues reading documents (behind {@link #emitted} in a lookback window). */
    private ScanCursor reading;

    private boolean started;
    private boolean passInProgress;
    private boolean documentsCaughtUp;
    private boolean markersCaughtUp;
    private boolean warnedKeyType;

    /**
     * @param client the connection (not closed by this reader)
     * @param ns     the collection; its delete markers are read from {@code plan.deleteMarkerCollection()} in the same database
     * @param plan   key, lookback, interval, index creation, marker collection, batch size
     * @param filter the user's query on the documents (empty: all); delete markers are not filtered
     * @param start  a SCAN offset to resume from (stored, or from {@link ScanStart}); null = from the beginning
     * @param clock  the wall time of READ events
     */
    public ScanReader(MongoClient client, Namespace ns, ScanPlan plan, BsonDocument filter, SourceOffset start, Clock clock) {
        this.ns = Objects.requireNonNull(ns, "ns");
        this.plan = Objects.requireNonNull(plan, "plan");
        this.filter = filter == null ? new BsonDocument() : filter;
        this.clock = Objects.requireNonNull(clock, "clock");
        if (start != null && start.phase() != SourceOffset.Phase.SCAN) {
            throw new IllegalArgumentException("a scan of " + ns + " cannot resume from a " + start.phase()
                    + " offset: " + start);
        }
        this.emitted = start == null ? null : ScanCursor.ofNullable(start.scanKey(), start.scanId());
        this.deletes = start == null ? null : ScanCursor.ofNullable(start.deleteAt(), start.deleteId());
        this.documents = client.getDatabase(ns.db()).getCollection(ns.coll(), BsonDocument.class);
        this.markers = client.getDatabase(ns.db()).getCollection(plan.deleteMarkerCollection(), BsonDocument.class);
    }

    /** The same, with the plan resolved from the connector's scan settings. */
    public ScanReader(MongoClient client, Namespace ns, ScanSettings settings, BsonDocument filter, int batchSize,
                      SourceOffset start, Clock clock) {
        this(client, ns, ScanPlan.of(settings, ns, batchSize), filter, start, clock);
    }

    @Override
    public List<Captured> next() {
        if (!started) {
            start();
        }
        List<Captured> out = new ArrayList<>();
        // Loop while a pass is still reading: a batch can be entirely made of lookback re-reads that
        // are skipped, and returning empty then would claim we waited when we did not.
        while (true) {
            if (!passInProgress) {
                beginPass();
            }
            if (!documentsCaughtUp) {
                documentsCaughtUp = readDocuments(out);
            }
            if (!markersCaughtUp) {
                markersCaughtUp = readMarkers(out);
            }
            if (documentsCaughtUp && markersCaughtUp) {
                passInProgress = false;
            }
            if (!out.isEmpty()) {
                return out;
            }
            if (!passInProgress) {
                return out; // caught up: the caller comes back after the scan interval
            }
        }
    }

    /** The position after everything emitted so far. */
    public SourceOffset position() {
        return SourceOffset.scan(emitted == null ? null : emitted.value(), emitted == null ? null : emitted.id(),
                deletes == null ? null : deletes.value(), deletes == null ? null : deletes.id());
    }

    @Override
    public void close() {
        // Nothing to release: cursors are read to the end of each batch and closed, the client is the caller's.
    }

    private void start() {
        if (plan.createIndex()) {
            // createIndex is idempotent: an existing identical index is left as it is.
            documents.createIndex(ScanQueries.sort(plan.key()));
            markers.createIndex(ScanQueries.deleteMarkerIndex());
        }
        long invisible = documents.countDocuments(ScanQueries.keyMissing(plan.key()));
        if (invisible > 0) {
            log.warn("Scan of {}: {} document(s) have no '{}' (missing or null) and are invisible to the scan until a "
                    + "write sets it", LogText.escape(ns), invisible, plan.key());
        }
        started = true;
    }

    private void beginPass() {
        reading = ScanQueries.lookback(emitted, plan.lookbackMs());
        if (reading != null && reading != emitted) {
            memory.forgetBefore(reading.value());
        }
        passInProgress = true;
        documentsCaughtUp = false;
        markersCaughtUp = false;
    }

    /** Reads one batch of documents into {@code out}; true when the batch was short (caught up). */
    private boolean readDocuments(List<Captured> out) {
        List<BsonDocument> batch = documents.find(ScanQueries.incremental(plan.key(), reading, filter))
                .sort(ScanQueries.sort(plan.key()))
                .batchSize(plan.batchSize())
                .limit(plan.batchSize())
                .into(new ArrayList<>(plan.batchSize()));
        for (BsonDocument doc : batch) {
            BsonValue id = doc.get(ScanQueries.ID);
            BsonValue keyValue = keyOf(doc);
            warnIfUnordered(keyValue, id);
            reading = ScanCursor.after(keyValue, id);
            boolean beyondEmitted = ScanCursor.isAfter(keyValue, id, emitted);
            if (beyondEmitted) {
                emitted = reading;
            } else if (memory.alreadyEmitted(id, keyValue)) {
                continue; // a lookback re-read of the version this run already sent
            }
            if (plan.lookbackMs() > 0 && keyValue.isDateTime()) {
                memory.remember(id, keyValue);
            }
            ChangeEvent event = ChangeEvent.read(ns, id, doc, null, clock.millis());
            out.add(new Captured.Change(event, position()));
        }
        return batch.size() < plan.batchSize();
    }

    /** Reads one batch of delete markers into {@code out}; true when the batch was short (caught up). */
    private boolean readMarkers(List<Captured> out) {
        List<BsonDocument> batch = markers.find(ScanQueries.deleteMarkers(ns.coll(), deletes))
                .sort(ScanQueries.deleteMarkerSort())
                .batchSize(plan.batchSize())
                .limit(plan.batchSize())
                .into(new ArrayList<>(plan.batchSize()));
        if (batch.isEmpty()) {
            return true;
        }
        Map<BsonValue, BsonValue> currentKeys = currentKeysOf(batch);
        boolean movedWithoutEvent = false;
        for (BsonDocument marker : batch) {
            BsonValue deletedAt = marker.get(ScanQueries.MARKER_DELETED_AT);
            BsonValue docId = marker.get(ScanQueries.MARKER_DOC_ID);
            deletes = ScanCursor.after(deletedAt, marker.get(ScanQueries.ID));
            if (docId == null) {
                log.warn("Scan of {}: delete marker {} in {} has no '{}'; skipped", LogText.escape(ns),
                        LogText.escape(marker.get(ScanQueries.ID)),
                        plan.deleteMarkerCollection(), ScanQueries.MARKER_DOC_ID);
                movedWithoutEvent = true;
                continue;
            }
            if (writtenAfter(currentKeys.get(docId), deletedAt)) {
                // The seed's guard (key <= deletedAt): the document was written again after this delete,
                // and that version is (or will be) emitted by the scan; deleting it downstream would lose it.
                movedWithoutEvent = true;
                continue;
            }
            long wallTime = deletedAt.isDateTime() ? deletedAt.asDateTime().getValue() : clock.millis();
            out.add(new Captured.Change(ChangeEvent.delete(ns, docId, null, wallTime), position()));
            movedWithoutEvent = false;
        }
        if (movedWithoutEvent) {
            // The last markers were skipped: still commit past them, so a restart does not re-examine them.
            out.add(new Captured.Heartbeat(position()));
        }
        return batch.size() < plan.batchSize();
    }

    /** The current key of each document a marker batch names that still exists: one find for the batch. */
    private Map<BsonValue, BsonValue> currentKeysOf(List<BsonDocument> markerBatch) {
        BsonArray ids = new BsonArray();
        for (BsonDocument marker : markerBatch) {
            BsonValue docId = marker.get(ScanQueries.MARKER_DOC_ID);
            if (docId != null) {
                ids.add(docId);
            }
        }
        Map<BsonValue, BsonValue> keys = new HashMap<>();
        if (ids.isEmpty()) {
            return keys;
        }
        BsonDocument query = new BsonDocument(ScanQueries.ID, new BsonDocument("$in", ids));
        for (BsonDocument doc : documents.find(query).projection(new BsonDocument(plan.key(), new BsonInt32(1)))) {
            BsonValue key = DottedPath.get(doc, plan.key());
            if (key != null) {
                keys.put(doc.get(ScanQueries.ID), key);
            }
        }
        return keys;
    }

    /** True when a document's current key is a date later than the marker's deletedAt. */
    private static boolean writtenAfter(BsonValue currentKey, BsonValue deletedAt) {
        // Only dates compare with deletedAt; for number or string keys the server's query
        // (key <= deletedAt) would not match either, so the delete is emitted as it is.
        return currentKey != null && currentKey.isDateTime() && deletedAt.isDateTime()
                && BsonOrder.compare(currentKey, deletedAt) > 0;
    }

    private BsonValue keyOf(BsonDocument doc) {
        BsonValue value = DottedPath.get(doc, plan.key());
        if (value == null || value.isNull()) {
            // The query excludes these; a dotted key through an array can still get here.
            throw new IllegalStateException("Scan of " + ns + ": document " + doc.get(ScanQueries.ID) + " matched the scan but its key '"
                    + plan.key() + "' cannot be read as one value (a path through an array?): choose a scan key that is a plain field");
        }
        return value;
    }

    private void warnIfUnordered(BsonValue keyValue, BsonValue id) {
        if (warnedKeyType || keyValue.isDateTime() || keyValue.isNumber() || keyValue.isString()) {
            return;
        }
        warnedKeyType = true;
        log.warn("Scan of {}: key '{}' of document {} is a {}, not a date, number or string. The server compares values of "
                + "one type at a time, so documents whose key has another type than the cursor's may be skipped: give every "
                + "document a key of one type", LogText.escape(ns), plan.key(), LogText.escape(id), keyValue.getBsonType());
    }
}
