package dev.tideline.source;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import dev.tideline.event.Namespace;
import dev.tideline.mongo.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.repair.RepairRequest;
import dev.tideline.source.repair.RepairSignals;
import dev.tideline.source.stream.DatabaseStream;
import dev.tideline.source.stream.RepairWindow;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task's repairs: re-copies asked for by signal documents ({@link RepairSignals}), one at a time on
 * one thread (started on demand), each in chunks read between two watermarks of its database's change
 * stream ({@link RepairWindow}), so the stream never pauses and a copied document never follows a newer
 * change of it on the topic. {@link RepairRun} runs one.
 *
 * <p>Per chunk, in one causally consistent session: insert the low watermark into the signal
 * collection, select the chunk ({@code _id} order, the collection's filter, majority read concern after
 * the watermark), hand it to the window, delete the watermark (the high mark); the next chunk is read so
 * while the stream reaches this one's high mark, and a chunk is done once the stream has sent it in place. The record that closes a chunk moves the collection's
 * {@link RepairProgress} (kept in its offsets): a restart goes on after the last chunk committed; the
 * record that closes the last one marks the signal done. A range or whole-collection repair is
 * bracketed by resnapshot markers whose epoch is its first low watermark: the sink then removes, within
 * that range, what no chunk found. A repair of listed ids sends a delete for each id not found.
 */
final class CollectionRepairs implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CollectionRepairs.class);
    private static final long NOT_STREAMING_RETRY_MS = 5_000;
    private static final long PROGRESS_EVERY_MS = 10_000;

    /**
     * Where the runner finds the task's collections and streams.
     *
     * @param collection the task's collection, or null when another task (or none) captures it
     * @param owns       whether this task would capture the namespace if the connector did (one task owns each)
     * @param streamOf   the task's change stream of a database
     * @param markerPartitions how many partitions a collection's resnapshot markers go to
     */
    record Capture(Function<Namespace, CapturedCollection> collection, Predicate<Namespace> owns,
                   Function<String, DatabaseStream> streamOf, ToIntFunction<CapturedCollection> markerPartitions) {
    }

    private final MongoClient client;
    private final Capture capture;
    private final String connector;
    private final int chunkSize;
    private final ThreadPoolExecutor pool;
    /** Signals queued or running in this task run, by database and signal _id. */
    private final Set<String> active = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    CollectionRepairs(MongoClient client, Capture capture, String connector, int chunkSize, TaskThreads threads) {
        this.client = client;
        this.capture = capture;
        this.connector = connector;
        this.chunkSize = chunkSize;
        this.pool = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads.factory("repair"));
        this.pool.allowCoreThreadTimeOut(true); // no repair, no thread
    }

    /** Every signal of a database not done yet, e.g. at start (a repair that was running resumes). */
    void scan(String db) {
        submit(() -> {
            for (BsonDocument s : signals(db).find()) { // a handful of documents: the signals and at most a few watermarks
                if (!RepairSignals.isWatermark(s.get("_id"))) {
                    consider(db, s);
                }
            }
        });
    }

    /** Signals the stream read (their {@code _id}s). */
    void signalled(String db, List<BsonValue> ids) {
        submit(() -> {
            for (BsonValue id : ids) {
                BsonDocument s = signals(db).find(new BsonDocument("_id", id)).first();
                if (s != null) {
                    consider(db, s);
                }
            }
        });
    }

    private void consider(String db, BsonDocument signal) {
        RepairSignals.Parsed parsed = RepairSignals.parse(signal);
        if (!parsed.ok()) {
            log.warn("Repair signal {} in {}.{} is ignored: {}", signal.get("_id"), db, RepairSignals.COLLECTION, parsed.problem());
            return;
        }
        RepairRequest r = parsed.request();
        CapturedCollection c = capture.collection().apply(new Namespace(db, r.collection()));
        if (c == null) {
            if (capture.owns().test(new Namespace(db, r.collection()))) {
                // said once, by the one task that would capture it: a typo or an excluded collection is not silent
                log.warn("Repair signal {} in {}.{} names {}.{}, which this connector does not capture (no such collection, "
                        + "or not selected by database.include / collection.include / ...exclude): ignored", r.signal(), db,
                        RepairSignals.COLLECTION, db, r.collection());
            }
            return;
        }
        if (c.records().repair().isDone(r.signal())) {
            return;
        }
        String key = db + "/" + r.signal();
        if (active.add(key)) {
            log.info("Repair {} of {}: {} queued", r.signal(), c.ns(), r.scope().describe());
            pool.execute(() -> {
                try {
                    run(c, r);
                } finally {
                    active.remove(key);
                    c.metrics().repairEnded(false); // no repair runs now, however it ended
                }
            });
        }
    }

    private void run(CapturedCollection c, RepairRequest r) {
        Backoff backoff = new Backoff(1_000, 30_000);
        long started = System.currentTimeMillis();
        long lastLogMs = started;
        RepairRun run = null;
        while (!stopped) {
            try {
                if (c.state() != CapturedCollection.State.STREAMING) {
                    if (c.state() == CapturedCollection.State.PARKED) {
                        log.warn("Repair {} of {} is not run: the collection is parked", r.signal(), c.ns());
                        return;
                    }
                    Thread.sleep(NOT_STREAMING_RETRY_MS); // copied or moved first; the repair follows
                    continue;
                }
                if (run == null) {
                    RepairProgress p = c.records().repair();
                    run = p.isRunning(r.signal()) ? new RepairRun(client, capture, connector, chunkSize, c, r, p.epoch(), p.lastId())
                            : new RepairRun(client, capture, connector, chunkSize, c, r, null, null);
                    log.info("Repair {} of {} ({}) {}", r.signal(), c.ns(), r.scope().describe(),
                            run.sentUpTo() == null ? "starts" : "resumes after _id " + run.sentUpTo());
                    c.metrics().repairStarted(r.signal().toString());
                }
                long copiedBefore = run.copied();
                long deletedBefore = run.deleted();
                boolean last = run.step();
                c.metrics().repairChunk(run.copied() - copiedBefore, run.deleted() - deletedBefore);
                if (last) {
                    log.info("Repair {} of {} done in {} ms: {} chunk(s), {} document(s) copied again, {} deleted", r.signal(), c.ns(),
                            System.currentTimeMillis() - started, run.chunks(), run.copied(), run.deleted());
                    c.metrics().repairEnded(true);
                    return;
                }
                if (System.currentTimeMillis() - lastLogMs >= PROGRESS_EVERY_MS) {
                    lastLogMs = System.currentTimeMillis();
                    log.info("Repair {} of {}: {} chunk(s), {} document(s) copied again, {} deleted, up to _id {}", r.signal(), c.ns(),
                            run.chunks(), run.copied(), run.deleted(), run.sentUpTo());
                }
                backoff.reset();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                if (stopped) {
                    return;
                }
                ErrorClass kind = MongoErrors.classify(e);
                if (kind == ErrorClass.AUTH) {
                    log.error("Repair {} of {} stopped: the source refused the connector's user ({}). A repair needs find, insert "
                            + "and remove on {}.{} and find on the collection. The capture goes on; the signal is tried again at the "
                            + "next start.", r.signal(), c.ns(), e.getMessage(), c.ns().db(), RepairSignals.COLLECTION);
                    return;
                }
                if (kind != ErrorClass.RETRIABLE && !(e instanceof RepairRun.WindowNotClosed)) {
                    log.error("Repair {} of {} stopped: {}. The capture goes on; the signal is tried again at the next start.",
                            r.signal(), c.ns(), e.toString());
                    return;
                }
                long delay = backoff.next();
                log.warn("Repair {} of {}: chunk interrupted (attempt {}), again in {} ms: {}", r.signal(), c.ns(), backoff.attempts(),
                        delay, e.toString());
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private MongoCollection<BsonDocument> signals(String db) {
        return RepairRun.signals(client, db);
    }

    private void submit(Runnable r) {
        if (stopped) {
            return;
        }
        pool.execute(() -> {
            try {
                r.run();
            } catch (RuntimeException e) {
                if (!stopped) {
                    log.warn("Reading repair signals failed ({}): {}. They are read again at the next signal or start.",
                            MongoErrors.classify(e), e.toString());
                }
            }
        });
    }

    @Override
    public void close() {
        stopped = true;
        pool.shutdownNow();
    }
}
