package dev.tideline.source;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import dev.tideline.event.Namespace;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.mongo.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.StartPlanner.Phase;
import dev.tideline.source.StartPlanner.Plan;
import dev.tideline.source.config.CaptureSettings;
import dev.tideline.source.config.CaptureSettings.LostHistoryPolicy;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Captures one collection on its own thread: plans the start, runs backfill → stream (or the scan),
 * and is the one place that acts on a failure's class: transient → reopen from the last position
 * with back-off; lost history → the configured policy; authentication or anything else → the task fails
 * with the reason. Never skips silently.
 */
final class CollectionCapture implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(CollectionCapture.class);

    private final Namespace ns;
    private final MongoDatabase db;
    private final MongoCollection<RawBsonDocument> collection;
    private final CaptureSettings settings;
    private final BsonDocument filter;
    private final StreamSupport streamSupport;
    private final ScanReaders scanReaders;
    private final RecordFactory records;
    private final RecordQueue queue;
    private final CaptureMetrics metrics;
    private final Backoff backoff = new Backoff(1_000, 30_000);
    private volatile boolean stopped;
    /** The position after the last item handed to the queue (null before the first). */
    private SourceOffset position;
    private Plan plan;

    CollectionCapture(Namespace ns, MongoDatabase db, CaptureSettings settings, StreamSupport streamSupport,
                      ScanReaders scanReaders, RecordFactory records, RecordQueue queue, SourceOffset stored,
                      CaptureMetrics metrics) {
        this.ns = ns;
        this.db = db;
        this.collection = db.getCollection(ns.coll(), RawBsonDocument.class);
        this.settings = settings;
        this.filter = settings.filterFor(ns);
        this.streamSupport = streamSupport;
        this.scanReaders = scanReaders;
        this.records = records;
        this.queue = queue;
        this.position = stored;
        this.metrics = metrics;
    }

    void stop() {
        stopped = true;
    }

    @Override
    public void run() {
        while (!stopped) {
            CollectionReader reader = null;
            try {
                if (plan == null) {
                    // probe only where the answer matters: mode=scan must not open a stream (nor warn about it)
                    boolean streams = settings.mode() == CaptureSettings.Mode.AUTO
                            && streamSupport.available(db.getCollection(ns.coll(), BsonDocument.class));
                    plan = StartPlanner.plan(position, settings.mode(), settings.initialSync(), streams,
                            () -> ServerClock.streamStart(db));
                    log.info("Capture of {} → topic {}: {} from {}", ns, records.topic(), plan.phase(),
                            plan.offset() == null ? "its initial sync" : plan.offset());
                    if (plan.phase() == Phase.BACKFILL && plan.offset().lastId() == null) {
                        // commit the stream start before copying anything: a restart must not take a later one
                        publish(List.of(new Captured.Heartbeat(plan.offset())));
                    }
                }
                reader = open(plan);
                while (!stopped) {
                    List<Captured> batch = reader.next();
                    if (!batch.isEmpty()) {
                        publish(batch);
                        backoff.reset();
                    }
                    if (reader.finished()) {
                        plan = new Plan(Phase.STREAM, SourceOffset.streamFrom(plan.offset().startAt()));
                        metrics.streaming();
                        break;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                if (stopped) {
                    return;
                }
                if (!handle(e, reader)) {
                    return;
                }
            } finally {
                closeQuietly(reader);
            }
        }
    }

    private CollectionReader open(Plan p) {
        BackfillProgress progress = p.phase() == Phase.BACKFILL
                ? new BackfillProgress(collection.estimatedDocumentCount(), System.currentTimeMillis()) : null;
        CollectionReader reader = switch (p.phase()) {
            case BACKFILL -> new BackfillReader(collection, ns, filter, settings.batchSize(), p.offset(),
                    settings.resnapshotMarkerPartitions(), progress);
            case STREAM -> new StreamReader(collection, ns, filter, p.offset(), settings.batchSize(), settings.maxAwaitMs(),
                    settings.heartbeatIntervalMs());
            case SCAN -> scanReaders.open(ns, filter, p.offset());
        };
        metrics.opened(p.phase(), progress);
        return reader;
    }

    /** @return false when the capture must end (the task is failed through the queue) */
    private boolean handle(RuntimeException e, CollectionReader reader) throws RuntimeException {
        ErrorClass kind = MongoErrors.classify(e);
        boolean streaming = plan != null && plan.phase() == Phase.STREAM;
        if (kind == ErrorClass.HISTORY_LOST && !streaming) {
            kind = ErrorClass.RETRIABLE; // a lost find cursor: the query is simply run again from the last position
        }
        metrics.failed(kind, e);
        switch (kind) {
            case RETRIABLE: {
                long delay = backoff.next();
                log.warn("Capture of {} interrupted by a transient error (attempt {}), reopening in {} ms from {}: {}",
                        ns, backoff.attempts(), delay, position == null ? "the start" : "the last position", e.toString());
                sleep(delay);
                plan = null; // re-plan from the last position handed over
                return true;
            }
            case HISTORY_LOST:
                return onHistoryLost(e);
            case AUTH:
                queue.fail(new ConnectException("Capture of " + ns + " failed: authentication or authorization refused by "
                        + "the source (" + e.getMessage() + "). Check the user and password in mongodb.uri and that the user "
                        + "may read the collection and open change streams (find, changeStream).", e));
                return false;
            default:
                queue.fail(new ConnectException("Capture of " + ns + " failed: " + e, e));
                return false;
        }
    }

    private boolean onHistoryLost(RuntimeException e) {
        LostHistoryPolicy policy = settings.lostHistoryPolicy();
        metrics.historyLost(policy != LostHistoryPolicy.LATEST);
        String what = "the change stream of " + ns + " can no longer resume (" + e.getMessage() + ")";
        if (policy == LostHistoryPolicy.FAIL) {
            queue.fail(new ConnectException(what + ". lost.history.policy=fail: fix by setting lost.history.policy="
                    + "resnapshot (copy the collection again) or latest, or reset this collection's offset "
                    + "(DELETE/PATCH /connectors/<name>/offsets).", e));
            return false;
        }
        try {
            var start = ServerClock.streamStart(db);
            if (policy == LostHistoryPolicy.RESNAPSHOT) {
                log.warn("LOST HISTORY: {}. Policy resnapshot: copying the collection again, then streaming from {}.", what, start);
                plan = new Plan(Phase.BACKFILL, SourceOffset.resnapshot(start, null));
            } else {
                log.warn("LOST HISTORY: {}. Policy latest: streaming from now ({}); changes in the gap are NOT captured.", what, start);
                plan = new Plan(Phase.STREAM, SourceOffset.streamFrom(start));
            }
            List<Captured> notices = new ArrayList<>(2);
            notices.add(new Captured.Control("history_lost", what + "; policy " + policy.name().toLowerCase(java.util.Locale.ROOT),
                    plan.offset()));
            if (policy == LostHistoryPolicy.RESNAPSHOT) {
                notices.add(new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.BEGIN, ns, start,
                        settings.resnapshotMarkerPartitions()), plan.offset()));
            }
            publish(notices);
            return true;
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return false;
        } catch (RuntimeException again) {
            plan = null;
            log.warn("Capture of {}: could not apply the lost-history policy yet: {}", ns, again.toString());
            sleep(backoff.next());
            return true;
        }
    }

    private void publish(List<Captured> batch) throws InterruptedException {
        List<SourceRecord> out = new ArrayList<>(batch.size() + 1);
        for (Captured c : batch) {
            records.append(c, out);
        }
        queue.put(out);
        position = batch.get(batch.size() - 1).offset();
        metrics.published(batch);
    }

    private void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            stopped = true;
        }
    }

    private void closeQuietly(CollectionReader reader) {
        if (reader == null) {
            return;
        }
        try {
            reader.close();
        } catch (RuntimeException e) {
            log.debug("Closing the reader of {} failed (already broken): {}", ns, e.toString());
        }
    }
}
