package dev.tideline.source;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import dev.tideline.event.Namespace;
import dev.tideline.log.LogText;
import dev.tideline.retry.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.repair.RepairRequest;
import dev.tideline.source.repair.RepairSignals;
import dev.tideline.source.repair.SignalAdmission;
import dev.tideline.source.repair.SignalStatus;
import dev.tideline.source.stream.DatabaseStream;
import dev.tideline.source.stream.RepairWindow;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
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
 *
 * <p>Signals are untrusted input (whoever may insert into {@code <db>._tideline_signals}): at most one repair
 * runs and {@code repair.queue.max} wait per collection ({@link SignalAdmission}), the rest are refused; each
 * signal's state is written into its document ({@link SignalStatus}): queued when accepted, done once the
 * offset that finishes it is committed, refused with its reason. A restart reads only the signals not done
 * or refused, so none runs twice, however many there were.
 */
final class CollectionRepairs implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CollectionRepairs.class);
    private static final long NOT_STREAMING_RETRY_MS = 5_000;
    private static final long PROGRESS_EVERY_MS = 10_000;
    private static final BsonDocument BY_ID = new BsonDocument("_id", new BsonInt32(1));

    /**
     * Where the runner finds the task's collections and streams.
     *
     * @param collection the task's collection, or null when another task (or none) captures it
     * @param all        the task's collections
     * @param owns       whether this task would capture the namespace if the connector did (one task owns each)
     * @param streamOf   the task's change stream of a database
     * @param markerPartitions how many partitions a collection's resnapshot markers go to
     */
    record Capture(Function<Namespace, CollectionCapture> collection, Supplier<Collection<CollectionCapture>> all,
                   Predicate<Namespace> owns, Function<String, DatabaseStream> streamOf,
                   ToIntFunction<CollectionCapture> markerPartitions, Function<Namespace, RepairProgress> committed) {
    }

    private final MongoClient client;
    private final Capture capture;
    private final String connector;
    private final int chunkSize;
    private final int queueMax;
    private final SignalMarks marks;
    /** Reads signals and decides on them, so a flood is refused while a repair runs. */
    private final ThreadPoolExecutor reader;
    /** Runs the accepted repairs, one at a time. */
    private final ThreadPoolExecutor runner;
    /** Signals accepted (queued or running) in this task run, by collection: their {@link #key}s. */
    private final Map<Namespace, Set<String>> accepted = new ConcurrentHashMap<>();
    /** Signals finished in this task run whose done mark waits for their last offset to be committed. */
    private final Map<Namespace, Set<BsonValue>> finishing = new ConcurrentHashMap<>();
    private volatile boolean stopped;

    CollectionRepairs(MongoClient client, Capture capture, String connector, int chunkSize, int queueMax, TaskThreads threads) {
        this.client = client;
        this.capture = capture;
        this.connector = connector;
        this.chunkSize = chunkSize;
        this.queueMax = queueMax;
        this.marks = new SignalMarks(client, connector);
        this.reader = onDemandThread(threads, "repair-signals");
        this.runner = onDemandThread(threads, "repair");
    }

    /** One thread, started on demand: no repair, no thread. The queue holds at most the accepted repairs (or signal batches). */
    private static ThreadPoolExecutor onDemandThread(TaskThreads threads, String role) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads.factory(role));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /**
     * Every signal of a database this connector has not done or refused, e.g. at start: first the repairs the
     * offsets say are running (they resume), then those queued before, then the new ones (a full queue refuses them).
     */
    void scan(String db) {
        submit(() -> {
            SignalRefusals refusals = new SignalRefusals(marks, db);
            for (CollectionCapture c : capture.all().get()) {
                RepairProgress p = c.repair();
                if (c.ns().db().equals(db) && p.running()) {
                    BsonDocument s = signals(db).find(new BsonDocument("_id", p.signal())).first();
                    if (s != null) {
                        consider(db, s, refusals);
                    }
                }
            }
            for (BsonDocument filter : List.of(SignalStatus.queuedBy(connector), SignalStatus.notHandledBy(connector))) {
                for (BsonDocument s : signals(db).find(filter).sort(BY_ID)) {
                    if (!RepairSignals.isWatermark(s.get("_id"))) {
                        consider(db, s, refusals);
                    }
                }
            }
            refusals.flush();
        });
    }

    /** Signals the stream read (their {@code _id}s): read in one query, refused in bulk. */
    void signalled(String db, List<BsonValue> ids) {
        submit(() -> {
            SignalRefusals refusals = new SignalRefusals(marks, db);
            BsonDocument these = new BsonDocument("_id", new BsonDocument("$in", new BsonArray(ids)));
            for (BsonDocument s : signals(db).find(these).sort(BY_ID)) {
                consider(db, s, refusals);
            }
            refusals.flush();
        });
    }

    /**
     * The finished repairs whose last offset is committed now get their done mark: only then, so a repair whose
     * last chunks were not committed when the task died is completed after the restart instead.
     */
    void markCommitted() {
        for (Map.Entry<Namespace, Set<BsonValue>> e : finishing.entrySet()) {
            if (e.getValue().isEmpty() || stopped) {
                continue;
            }
            Namespace ns = e.getKey();
            try {
                RepairProgress committed = capture.committed().apply(ns);
                for (BsonValue sig : e.getValue()) {
                    if (committed.isDone(sig) && !committed.isRunning(sig)) {
                        marks.finish(ns.db(), sig, SignalStatus.State.DONE, null);
                        e.getValue().remove(sig);
                    }
                }
            } catch (RuntimeException ex) {
                if (!stopped) {
                    log.warn("Could not mark the finished repair signal(s) of {} done in {}.{} ({}): {}. Tried again in a few "
                            + "seconds; until then a restart would only check them again.", LogText.escape(ns),
                            LogText.escape(ns.db()), RepairSignals.COLLECTION, MongoErrors.classify(ex), LogText.message(ex.toString()));
                }
            }
        }
    }

    private void consider(String db, BsonDocument signal, SignalRefusals refusals) {
        try {
            decide(db, signal, refusals);
        } catch (RuntimeException e) {
            ErrorClass kind = MongoErrors.classify(e);
            if (kind == ErrorClass.AUTH) {
                log.error("Repair signal {} in {}.{} is not run: the source refused to mark it ({}). The connector's user needs "
                        + "find, insert, update and remove on {}.{}.", LogText.escape(signal.get("_id")), LogText.escape(db),
                        RepairSignals.COLLECTION, LogText.message(e.getMessage()), LogText.escape(db), RepairSignals.COLLECTION);
                throw e;
            }
            if (kind == ErrorClass.RETRIABLE) {
                throw e; // the whole batch is read again at the next signal or start
            }
            // this one signal cannot be marked: it is never run, the others go on
            log.warn("Repair signal {} in {}.{} is not run: it cannot be marked ({}).", LogText.escape(signal.get("_id")),
                    LogText.escape(db), RepairSignals.COLLECTION, LogText.message(e.toString()));
        }
    }

    private void decide(String db, BsonDocument signal, SignalRefusals refusals) {
        BsonValue id = signal.get("_id");
        SignalStatus.State state = SignalStatus.of(signal, connector);
        if (state.terminal()) {
            return;
        }
        String unmarkable = SignalStatus.unmarkable(signal);
        if (unmarkable != null) {
            log.warn("Repair signal {} in {}.{} is not run: {}, so the source could not mark it done. Insert it again without "
                    + "\"{}\".", LogText.escape(id), LogText.escape(db), RepairSignals.COLLECTION, unmarkable, SignalStatus.FIELD);
            return;
        }
        RepairSignals.Parsed parsed = RepairSignals.parse(signal);
        if (!parsed.ok()) {
            refusals.add(id, "it is ignored: " + parsed.problem());
            return;
        }
        RepairRequest r = parsed.request();
        Namespace ns = new Namespace(db, r.collection());
        // the one look-up by name, the signal's: the repair's run and its windows are given the collection's handle
        CollectionCapture c = capture.collection().apply(ns);
        if (c == null) {
            if (capture.owns().test(ns)) {
                // said once, by the one task that would capture it: a typo or an excluded collection is not silent
                refusals.add(id, "it names " + LogText.escape(ns) + ", which this connector does not capture (no such collection, "
                        + "or not selected by database.include / collection.include / ...exclude)");
            }
            return;
        }
        Set<String> ofCollection = accepted.computeIfAbsent(ns, k -> ConcurrentHashMap.newKeySet());
        String key = key(r.signal());
        RepairProgress progress = c.repair();
        boolean finishingHere = finishing.getOrDefault(ns, Set.of()).contains(r.signal());
        SignalAdmission.Seen seen = new SignalAdmission.Seen(state, progress.isRunning(r.signal()), progress.isDone(r.signal()),
                ofCollection.contains(key) || finishingHere, ofCollection.size());
        switch (SignalAdmission.decide(seen, queueMax)) {
            case SKIP -> {
            }
            case MARK_DONE -> marks.finish(db, r.signal(), SignalStatus.State.DONE, null);
            case REFUSE -> refusals.add(id, "the repairs of " + LogText.escape(ns) + " already running or queued fill its queue "
                    + "(one running, repair.queue.max=" + queueMax + " waiting); insert the signal again once they are done");
            case RUN -> {
                if (state == SignalStatus.State.NEW && !marks.queue(db, r.signal())) {
                    return; // gone, or marked meanwhile
                }
                ofCollection.add(key);
                log.info("Repair {} of {}: {} queued", LogText.escape(r.signal()), LogText.escape(c.ns()),
                        LogText.message(r.scope().describe()));
                runner.execute(() -> {
                    boolean done = false;
                    try {
                        done = run(c, r);
                    } finally {
                        if (done) {
                            finishing.computeIfAbsent(ns, k -> ConcurrentHashMap.newKeySet()).add(r.signal());
                        }
                        ofCollection.remove(key);
                        c.metrics().repairEnded(false); // no repair runs now, however it ended
                    }
                });
            }
            default -> throw new IllegalStateException("unknown decision");
        }
    }

    /** A signal's name in this task's sets. */
    private static String key(BsonValue signal) {
        return new BsonDocument("_id", signal).toJson();
    }

    /** @return true when the repair finished (its last chunk handed over), false when it stopped */
    private boolean run(CollectionCapture c, RepairRequest r) {
        Backoff backoff = new Backoff(1_000, 30_000);
        long started = System.currentTimeMillis();
        long lastLogMs = started;
        RepairRun run = null;
        while (!stopped) {
            try {
                if (c.state() != CollectionCapture.State.STREAMING) {
                    if (c.state() == CollectionCapture.State.PARKED) {
                        log.warn("Repair {} of {} is not run: the collection is parked", LogText.escape(r.signal()),
                                LogText.escape(c.ns()));
                        return false;
                    }
                    Thread.sleep(NOT_STREAMING_RETRY_MS); // copied or moved first; the repair follows
                    continue;
                }
                if (run == null) {
                    // streaming now, so its database's stream is open: the run is given it with the collection
                    run = new RepairRun(client, connector, chunkSize, c, capture.streamOf().apply(c.ns().db()),
                            capture.markerPartitions().applyAsInt(c), r, c.repair());
                    log.info("Repair {} of {} ({}) {}", LogText.escape(r.signal()), LogText.escape(c.ns()),
                            LogText.message(r.scope().describe()),
                            run.sentUpTo() == null ? "starts" : "resumes after _id " + LogText.escape(run.sentUpTo()));
                    c.metrics().repairStarted(r.signal().toString());
                }
                long copiedBefore = run.copied();
                long deletedBefore = run.deleted();
                boolean last = run.step();
                c.metrics().repairChunk(run.copied() - copiedBefore, run.deleted() - deletedBefore);
                if (last) {
                    log.info("Repair {} of {} done in {} ms: {} chunk(s), {} document(s) copied again, {} deleted",
                            LogText.escape(r.signal()), LogText.escape(c.ns()), System.currentTimeMillis() - started,
                            run.chunks(), run.copied(), run.deleted());
                    c.metrics().repairEnded(true);
                    return true;
                }
                if (System.currentTimeMillis() - lastLogMs >= PROGRESS_EVERY_MS) {
                    lastLogMs = System.currentTimeMillis();
                    log.info("Repair {} of {}: {} chunk(s), {} document(s) copied again, {} deleted, up to _id {}",
                            LogText.escape(r.signal()), LogText.escape(c.ns()), run.chunks(), run.copied(), run.deleted(),
                            LogText.escape(run.sentUpTo()));
                }
                backoff.reset();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (RuntimeException e) {
                if (stopped) {
                    return false;
                }
                ErrorClass kind = MongoErrors.classify(e);
                if (kind == ErrorClass.AUTH) {
                    log.error("Repair {} of {} stopped: the source refused the connector's user ({}). A repair needs find, insert, "
                            + "update and remove on {}.{} and find on the collection. The capture goes on; the signal is tried again "
                            + "at the next start.", LogText.escape(r.signal()), LogText.escape(c.ns()), LogText.message(e.getMessage()),
                            LogText.escape(c.ns().db()), RepairSignals.COLLECTION);
                    return false;
                }
                if (kind != ErrorClass.RETRIABLE && !(e instanceof RepairRun.WindowNotClosed)) {
                    log.error("Repair {} of {} stopped: {}. The capture goes on; the signal is tried again at the next start.",
                            LogText.escape(r.signal()), LogText.escape(c.ns()), LogText.escape(e.toString()));
                    return false;
                }
                long delay = backoff.next();
                log.warn("Repair {} of {}: chunk interrupted (attempt {}), again in {} ms: {}", LogText.escape(r.signal()),
                        LogText.escape(c.ns()), backoff.attempts(), delay, LogText.escape(e.toString()));
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return false;
    }

    private MongoCollection<BsonDocument> signals(String db) {
        return RepairRun.signals(client, db);
    }

    private void submit(Runnable r) {
        if (stopped) {
            return;
        }
        reader.execute(() -> {
            try {
                r.run();
            } catch (RuntimeException e) {
                if (!stopped) {
                    log.warn("Reading repair signals failed ({}): {}. They are read again at the next signal or start.",
                            MongoErrors.classify(e), LogText.escape(e.toString()));
                }
            }
        });
    }

    @Override
    public void close() {
        stopped = true;
        reader.shutdownNow();
        runner.shutdownNow();
    }
}
