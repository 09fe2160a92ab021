package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.log.LogText;
import dev.tideline.retry.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.StartPlanner.Phase;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CopyPlan;
import dev.tideline.source.capture.CopyStart;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.config.SourceConfig;
import com.mongodb.client.MongoCollection;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.errors.ConnectException;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task's copies (backfills) on a bounded pool: {@code backfill.max.concurrent} at once, the rest
 * queued. A copy takes its stream start when it begins (not when it was queued), announces itself
 * with a {@code resnapshot.begin} marker (which also commits that start: a restart continues this copy
 * instead of taking a later one), copies, ends with {@code resnapshot.complete}, and hands the
 * collection to its database's change stream at the start it took.
 *
 * <p>A collection of at least {@code backfill.split.min.documents} is copied by all the connector's
 * tasks at once: its owner cuts it into {@code _id} chunks ({@link CopyPlan}) and commits them with the
 * begin marker; every task copies its chunks ({@link SplitCopies}) and the owner ends the copy once
 * every chunk's last offset is committed.
 *
 * <p>Failures stay with the collection: transient ones resume the copy after its last handed-over
 * {@code _id} with back-off; refused credentials fail the task; anything else parks the collection.
 */
final class CollectionCopies implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CollectionCopies.class);

    /** What a finished copy leads to, and how a failure is reported. */
    interface Owner {
        void copied(CollectionCapture c, BsonTimestamp streamStart);

        /** A copy split across tasks has begun (or goes on after a restart): its owner ends it once every chunk is copied. */
        void split(CollectionCapture c, CopyPlan plan);

        void park(CollectionCapture c, String reason);

        void fail(ConnectException e);
    }

    private final MongoClient client;
    private final SourceConfig config;
    private final Publisher publisher;
    private final TaskThreads threads;
    private final Owner owner;
    private final int tasks;
    private final ThreadPoolExecutor pool;
    private volatile boolean stopped;

    /** @param tasks the connector's task count: a large copy is split into as many chunks */
    CollectionCopies(MongoClient client, SourceConfig config, Publisher publisher, TaskThreads threads, Owner owner, int tasks) {
        this.client = client;
        this.config = config;
        this.publisher = publisher;
        this.threads = threads;
        this.owner = owner;
        this.tasks = tasks;
        int n = config.capture().backfillMaxConcurrent();
        this.pool = new ThreadPoolExecutor(n, n, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads.factory("copy"));
        this.pool.allowCoreThreadTimeOut(true); // no copy, no thread
    }

    /** @param from a backfill position to continue from, or null for a new copy */
    void submit(CollectionCapture c, SourceOffset from) {
        c.copyStarted();
        pool.execute(() -> copy(c, from, null));
    }

    /**
     * Copies {@code c} again from its first document because {@code replacedAt} (a rename onto it) replaced its
     * documents without change events: the copy's stream starts after that event ({@link CopyStart#after}), so its
     * finished copy covers it and a stream rewound before it later does not copy the collection again.
     */
    void submitReplaced(CollectionCapture c, BsonTimestamp replacedAt) {
        c.copyStarted();
        pool.execute(() -> copy(c, null, replacedAt));
    }

    /**
     * One chunk of a split copy, on the same pool as the task's own copies (a chunk waits its turn like
     * a copy). {@code chunkCapture} publishes under the chunk's partition; {@code done} runs once its last
     * record is handed over.
     *
     * @param from the chunk's stored position, or null to start it
     */
    void submitChunk(CollectionCapture chunkCapture, CopyPlan plan, CopyPlan.Chunk chunk, SourceOffset from, Runnable done) {
        pool.execute(() -> {
            if (copyRange(chunkCapture, from != null ? from : SourceOffset.backfill(plan.streamStart(), null), chunk, plan.chunks())) {
                done.run();
            }
        });
    }

    int running() {
        return pool.getActiveCount();
    }

    int queued() {
        return pool.getQueue().size();
    }

    /** @param replacedAt an event the new copy's stream must start after, or null */
    private void copy(CollectionCapture c, SourceOffset start, BsonTimestamp replacedAt) {
        // a split copy left by a run before peer mode was turned on: copied again whole, stamped by the owner
        SourceOffset from = start != null && start.split() != null && config.peer().clusterId().isPresent() ? null : start;
        Backoff backoff = new Backoff(1_000, 30_000);
        while (!stopped) {
            try {
                if (from == null) {
                    BsonTimestamp clock = ServerClock.streamStart(client.getDatabase(c.ns().db()));
                    BsonTimestamp streamStart = replacedAt == null ? clock : CopyStart.after(replacedAt, clock);
                    CopyPlan plan = plan(c, streamStart);
                    from = plan.chunks() > 1 ? SourceOffset.backfillSplit(plan) : SourceOffset.backfill(streamStart, null);
                }
                if (from.lastId() == null) {
                    // announces the copy on every partition and commits its stream start (and its chunks) before
                    // anything is copied; sent again when the copy restarts before its first copied id (a split copy:
                    // whenever its owner restarts), which the sink takes idempotently
                    publisher.publish(c, List.of(new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.BEGIN, c.ns(),
                            from.startAt(), markerPartitions(c)), from)));
                }
                break;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                if (!failed(c, e, backoff, null)) {
                    return;
                }
            }
        }
        if (stopped) {
            return;
        }
        if (from.split() != null) {
            owner.split(c, from.split());
        } else if (copyRange(c, from, null, 1)) {
            owner.copied(c, from.startAt());
        }
    }

    /**
     * Whether large copies are split across the tasks: with several tasks, splitting on, and not in peer
     * mode, where a copy's records are stamped by the owner's origin labeler, which keeps its clock in the
     * collection's own offset, so its copies stay with it.
     */
    boolean splits() {
        return tasks > 1 && config.capture().backfillSplitMinDocuments() > 0 && config.peer().clusterId().isEmpty();
    }

    /** How a new copy of {@code c} is split: into one chunk per task when it is large enough. */
    private CopyPlan plan(CollectionCapture c, BsonTimestamp streamStart) {
        if (!splits()) {
            return new CopyPlan(streamStart, List.of());
        }
        long minDocuments = config.capture().backfillSplitMinDocuments();
        MongoCollection<RawBsonDocument> coll = client.getDatabase(c.ns().db()).getCollection(c.ns().coll(), RawBsonDocument.class);
        long estimated = coll.estimatedDocumentCount();
        int chunks = CopyPlan.chunkCount(estimated, tasks, minDocuments);
        List<BsonValue> bounds = SplitBounds.findOrUnsplit(coll, estimated, chunks);
        CopyPlan plan = new CopyPlan(streamStart, bounds);
        if (plan.chunks() > 1) {
            log.info("Copy of {} (about {} documents) split into {} chunks for {} tasks, at _ids {}", LogText.escape(c.ns()),
                    estimated, plan.chunks(),
                    tasks, LogText.escape(bounds));
        }
        return plan;
    }

    private int markerPartitions(CollectionCapture c) {
        return config.topics().markerPartitions(c.ns());
    }

    /**
     * Copies {@code chunk} (null: the whole collection) from {@code start}, resuming after transient
     * failures; true once its last record is handed over, false when stopped or given up (reported).
     *
     * @param share how many such chunks the collection has: each is expected to hold that share of it
     */
    private boolean copyRange(CollectionCapture c, SourceOffset start, CopyPlan.Chunk chunk, int share) {
        Backoff backoff = new Backoff(1_000, 30_000);
        SourceOffset from = start;
        while (!stopped) {
            BackfillReader reader = null;
            try {
                BackfillProgress progress = new BackfillProgress(
                        client.getDatabase(c.ns().db()).getCollection(c.ns().coll()).estimatedDocumentCount() / share,
                        System.currentTimeMillis());
                c.metrics().opened(Phase.BACKFILL, progress);
                reader = new BackfillReader(client, c.ns(), c.filter(), config.capture().batchSize(), from, markerPartitions(c), chunk,
                        progress, threads.factory("copy-read"));
                while (!stopped) {
                    List<Captured> batch = reader.next();
                    publisher.publish(c, batch);
                    if (!batch.isEmpty() && c.position() != null && c.position().phase() == SourceOffset.Phase.BACKFILL) {
                        from = c.position();
                    }
                    backoff.reset();
                    if (reader.finished()) {
                        return true;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (RuntimeException e) {
                if (!failed(c, e, backoff, from)) {
                    return false;
                }
            } finally {
                if (reader != null) {
                    reader.close();
                }
            }
        }
        return false;
    }

    /**
     * A copy's failure: true when it is transient and the copy goes on after a back-off; false when the task
     * stops, its credentials were refused (the task fails) or the collection is parked.
     */
    private boolean failed(CollectionCapture c, RuntimeException e, Backoff backoff, SourceOffset from) {
        if (stopped) {
            return false;
        }
        ErrorClass kind = MongoErrors.classify(e);
        if (kind == ErrorClass.HISTORY_LOST) {
            kind = ErrorClass.RETRIABLE; // a lost find cursor: the query is simply run again after the last copied _id
        }
        c.metrics().failed(kind, e);
        if (kind == ErrorClass.RETRIABLE) {
            long delay = backoff.next();
            log.warn("Copy of {} interrupted by a transient error (attempt {}), resuming in {} ms after {}: {}", LogText.escape(c.ns()),
                    backoff.attempts(), delay, LogText.escape(from == null || from.lastId() == null ? "its start" : "_id " + from.lastId()),
                    LogText.message(e.toString()));
            return sleep(delay);
        }
        if (kind == ErrorClass.AUTH) {
            owner.fail(new ConnectException("Copy of " + c.ns() + " failed: authentication or authorization refused by the "
                    + "source (" + e.getMessage() + "). Check the user and password in mongodb.uri and that the user may "
                    + "read the collection (find) and open change streams (changeStream).", e));
            return false;
        }
        owner.park(c, "its copy failed: " + e);
        return false;
    }

    private boolean sleep(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        stopped = true;
        pool.shutdownNow();
    }

    boolean awaitTermination(long ms) throws InterruptedException {
        return pool.awaitTermination(ms, TimeUnit.MILLISECONDS);
    }
}
