package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.mongo.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.StartPlanner.Phase;
import dev.tideline.source.config.SourceConfig;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.errors.ConnectException;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task's copies (backfills) on a bounded pool: {@code backfill.max.concurrent} at once, the rest
 * queued. A copy takes its stream start when it begins (not when it was queued), announces itself
 * with a {@code resnapshot.begin} marker (which also commits that start: a restart continues this copy
 * instead of taking a later one), copies, ends with {@code resnapshot.complete}, and hands the
 * collection to its database's change stream at the start it took.
 *
 * <p>Failures stay with the collection: transient ones resume the copy after its last handed-over
 * {@code _id} with back-off; refused credentials fail the task; anything else parks the collection.
 */
final class CollectionCopies implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CollectionCopies.class);

    /** What a finished copy leads to, and how a failure is reported. */
    interface Owner {
        void copied(CapturedCollection c, BsonTimestamp streamStart);

        void park(CapturedCollection c, String reason);

        void fail(ConnectException e);
    }

    private final MongoClient client;
    private final SourceConfig config;
    private final Publisher publisher;
    private final TaskThreads threads;
    private final Owner owner;
    private final ThreadPoolExecutor pool;
    private volatile boolean stopped;

    CollectionCopies(MongoClient client, SourceConfig config, Publisher publisher, TaskThreads threads, Owner owner) {
        this.client = client;
        this.config = config;
        this.publisher = publisher;
        this.threads = threads;
        this.owner = owner;
        int n = config.capture().backfillMaxConcurrent();
        this.pool = new ThreadPoolExecutor(n, n, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads.factory("copy"));
        this.pool.allowCoreThreadTimeOut(true); // no copy, no thread
    }

    /** @param from a backfill position to continue from, or null for a new copy */
    void submit(CapturedCollection c, SourceOffset from) {
        c.state(CapturedCollection.State.COPYING);
        pool.execute(() -> copy(c, from));
    }

    int running() {
        return pool.getActiveCount();
    }

    int queued() {
        return pool.getQueue().size();
    }

    private void copy(CapturedCollection c, SourceOffset start) {
        Backoff backoff = new Backoff(1_000, 30_000);
        SourceOffset from = start;
        while (!stopped) {
            BackfillReader reader = null;
            try {
                if (from == null) {
                    from = SourceOffset.backfill(ServerClock.streamStart(client.getDatabase(c.ns().db())), null);
                }
                int partitions = config.topics().markerPartitions().forTopic(c.records().topic());
                if (from.lastId() == null) {
                    // announces the copy on every partition and commits its stream start before anything is copied
                    publisher.publish(c, List.of(new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.BEGIN, c.ns(),
                            from.startAt(), partitions), from)));
                }
                BackfillProgress progress = new BackfillProgress(
                        client.getDatabase(c.ns().db()).getCollection(c.ns().coll()).estimatedDocumentCount(), System.currentTimeMillis());
                c.metrics().opened(Phase.BACKFILL, progress);
                reader = new BackfillReader(client, c.ns(), c.filter(), config.capture().batchSize(), from, partitions, progress,
                        threads.factory("copy-read"));
                while (!stopped) {
                    List<Captured> batch = reader.next();
                    publisher.publish(c, batch);
                    if (!batch.isEmpty() && c.position() != null && c.position().phase() == SourceOffset.Phase.BACKFILL) {
                        from = c.position();
                    }
                    backoff.reset();
                    if (reader.finished()) {
                        owner.copied(c, from.startAt());
                        return;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                if (stopped) {
                    return;
                }
                ErrorClass kind = MongoErrors.classify(e);
                if (kind == ErrorClass.HISTORY_LOST) {
                    kind = ErrorClass.RETRIABLE; // a lost find cursor: the query is simply run again after the last copied _id
                }
                c.metrics().failed(kind, e);
                if (kind == ErrorClass.RETRIABLE) {
                    long delay = backoff.next();
                    log.warn("Copy of {} interrupted by a transient error (attempt {}), resuming in {} ms after {}: {}", c.ns(),
                            backoff.attempts(), delay, from == null || from.lastId() == null ? "its start" : "_id " + from.lastId(),
                            e.toString());
                    if (!sleep(delay)) {
                        return;
                    }
                } else if (kind == ErrorClass.AUTH) {
                    owner.fail(new ConnectException("Copy of " + c.ns() + " failed: authentication or authorization refused by the "
                            + "source (" + e.getMessage() + "). Check the user and password in mongodb.uri and that the user may "
                            + "read the collection (find) and open change streams (changeStream).", e));
                    return;
                } else {
                    owner.park(c, "its copy failed: " + e);
                    return;
                }
            } finally {
                if (reader != null) {
                    reader.close();
                }
            }
        }
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
