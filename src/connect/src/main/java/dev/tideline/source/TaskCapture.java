package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.health.SourceTaskMetrics;
import dev.tideline.log.LogText;
import dev.tideline.retry.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.capture.CopyPlan;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import dev.tideline.source.config.SourceConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one source task captures, with a bounded number of threads and connections whatever the
 * number of collections: one change stream per database ({@link DatabaseStreams}), copies on a pool of
 * {@code backfill.max.concurrent} ({@link CollectionCopies}), date scans on as many threads
 * ({@link CollectionScans}), and one thread that finds the task's collections and carries out the
 * decisions that need a round trip (this class, on its {@link Coordinator}).
 *
 * <p>The task finds its own collections: it lists the included databases now and every
 * {@code collection.discovery.interval.ms}, keeps those {@link TaskOwnership} gives it, reads their
 * stored offsets and starts each where {@link StartPlanner} says, without touching the others. A server
 * that does not answer is listed again with back-off (health {@code down} meanwhile); credentials it
 * refuses fail the task with what to fix. Each collection then owns its capture ({@link CollectionCapture});
 * how it starts is {@link CollectionStarts}'s.
 */
final class TaskCapture implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TaskCapture.class);
    /** How often finished repairs are checked for their committed offset (then marked done in their signal). */
    private static final long REPAIR_MARKS_MS = 2_000;
    /** The first wait before listing the collections again after a failure (it doubles up to the discovery interval). */
    private static final long DISCOVERY_RETRY_MIN_MS = 1_000;
    /** How many new collections a discovery names in its log line. */
    private static final int NEW_COLLECTIONS_LOGGED = 20;

    private final SourceConfig config;
    private final MongoClient client;
    private final TaskOwnership ownership;
    private final OffsetStorageReader offsets;
    private final RecordQueue queue;
    private final SourceTaskMetrics metrics;
    private final TaskThreads threads;
    private final Publisher publisher;
    private final Coordinator coordinator;
    private final CollectionCopies copies;
    private final CollectionRepairs repairs;
    private final SplitCopies splitCopies;
    private final DatabaseStreams streams;
    private final CollectionStarts starts;
    /** every collection the last listing found (this task's and the others'), for the split copies */
    private volatile List<Namespace> listed = List.of();
    private final SkipStarts skipStarts;
    private final Backoff discoveryBackoff;
    private final Map<Namespace, CollectionCapture> collections = new ConcurrentHashMap<>();
    private CollectionScans scans;

    TaskCapture(SourceConfig config, MongoClient client, TaskOwnership ownership, OffsetStorageReader offsets, RecordQueue queue,
                SourceTaskMetrics metrics, String producer, TaskThreads threads, IntSupplier connections, String connector) {
        this.config = config;
        this.skipStarts = new SkipStarts(client, connector);
        this.client = client;
        this.ownership = ownership;
        this.offsets = offsets;
        this.queue = queue;
        this.metrics = metrics;
        this.threads = threads;
        this.publisher = new Publisher(queue);
        this.coordinator = new Coordinator(threads, queue::fail);
        this.streams = new DatabaseStreams(config, client, publisher, queue, metrics, threads, this::signalled);
        this.copies = new CollectionCopies(client, config, publisher, threads, new CopyOwner(), ownership.count());
        CollectionCapture.Wiring wiring = new CollectionCapture.Wiring(publisher, coordinator, copies, streams,
                config.capture().lostHistoryPolicy(), client, queue::fail);
        this.starts = new CollectionStarts(config, client, offsets, producer, metrics, skipStarts, wiring, this::scans, collections);
        this.splitCopies = new SplitCopies(ownership, offsets, copies::submitChunk, publisher, new SplitCapture(() -> listed, collections, starts),
                this::markerPartitions);
        this.repairs = new CollectionRepairs(client, new CollectionRepairs.Capture(collections::get, collections::values, ownership::owns,
                streams::of, this::markerPartitions, ns -> SourceOffset.repair(offsets.offset(SourcePartition.of(ns)))), connector,
                config.repair().chunkSize(), config.repair().queueMax(), threads);
        this.discoveryBackoff = new Backoff(DISCOVERY_RETRY_MIN_MS, Math.max(DISCOVERY_RETRY_MIN_MS, config.selection().discoveryIntervalMs()));
        metrics.gauges(new TaskGauges(streams.byDatabase(), copies, collections, threads, connections));
    }

    void start() {
        coordinator.schedule(this::discover, 0);
        if (copies.splits()) {
            coordinator.schedule(this::pollSplitCopies, SplitCopies.POLL_MS);
        }
        if (config.repair().enabled()) {
            coordinator.schedule(this::markRepairsCommitted, REPAIR_MARKS_MS);
        }
    }

    /** Finished repairs get their done mark once their last offset is committed (see CollectionRepairs#markCommitted). */
    private void markRepairsCommitted() throws InterruptedException {
        repairs.markCommitted();
        coordinator.schedule(this::markRepairsCommitted, REPAIR_MARKS_MS);
    }

    private void pollSplitCopies() throws InterruptedException {
        try {
            splitCopies.poll();
        } catch (RuntimeException e) {
            if (coordinator.closed()) {
                return;
            }
            log.warn("Could not read the split copies' offsets this round ({}); again in {} ms", LogText.message(e.toString()),
                    SplitCopies.POLL_MS);
        }
        coordinator.schedule(this::pollSplitCopies, SplitCopies.POLL_MS);
    }

    private int markerPartitions(CollectionCapture c) {
        return config.topics().markerPartitions(c.ns());
    }

    /** Lists the collections, starts the new ones of this task; runs on the coordinator thread. */
    private void discover() {
        if (coordinator.closed()) {
            return;
        }
        try {
            List<Namespace> mine = new ArrayList<>();
            boolean skipStartsKept = config.capture().initialSync().startsWithoutCopy();
            if (skipStartsKept) {
                skipStarts.beforeListing();
            }
            List<Namespace> listed = CollectionDiscovery.list(client, config.selection());
            this.listed = List.copyOf(listed);
            for (Namespace ns : listed) {
                if (ownership.owns(ns) && !collections.containsKey(ns)) {
                    mine.add(ns);
                }
            }
            if (!mine.isEmpty()) {
                log.info("Task {} of {}: {} new collection(s) to capture: {}", ownership.index(), ownership.count(), mine.size(),
                        LogText.message(mine.size() <= NEW_COLLECTIONS_LOGGED ? mine : mine.subList(0, NEW_COLLECTIONS_LOGGED) + " ..."));
                boolean useStreams = starts.begin(mine, listed, skipStartsKept);
                if (useStreams && config.repair().enabled()) {
                    // signals not done yet (a repair that was running resumes): read once its collections are known
                    mine.stream().map(Namespace::db).distinct().forEach(repairs::scan);
                }
            }
            metrics.discovery(false, false);
            discoveryBackoff.reset();
            coordinator.schedule(this::discover, config.selection().discoveryIntervalMs());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ConnectException e) {
            queue.fail(e); // explained where it was raised (a refused skip start, for instance)
        } catch (RuntimeException e) {
            if (coordinator.closed()) {
                return;
            }
            if (MongoErrors.classify(e) == ErrorClass.AUTH) {
                queue.fail(new ConnectException("The source refused the task's credentials while listing its collections ("
                        + e.getMessage() + "). Check the user and password in mongodb.uri and the user's roles (listDatabases, "
                        + "listCollections, find, changeStream).", e));
                return;
            }
            long delay = discoveryBackoff.next();
            metrics.discovery(true, MongoErrors.isUnreachable(e));
            log.warn("Cannot list the source's collections, or keep their start (initial.sync=skip) (attempt {}, {}): {}. Retrying in {} ms; the collections already "
                    + "captured go on.", discoveryBackoff.attempts(), MongoErrors.classify(e), LogText.message(e.toString()), delay);
            coordinator.schedule(this::discover, delay);
        }
    }

    private synchronized CollectionScans scans() {
        if (scans == null) {
            scans = new CollectionScans(new DateScanReaders(config, client), publisher, threads, config.capture().backfillMaxConcurrent(),
                    config.scan().intervalMs(), new CopyOwner());
        }
        return scans;
    }

    /** What copies and scans report back. */
    private final class CopyOwner implements CollectionCopies.Owner {
        @Override
        public void copied(CollectionCapture c, BsonTimestamp streamStart) {
            c.copied(streamStart);
        }

        @Override
        public void split(CollectionCapture c, CopyPlan plan) {
            splitCopies.ownerSplit(c, plan);
        }

        @Override
        public void park(CollectionCapture c, String reason) {
            c.park(reason);
        }

        @Override
        public void fail(ConnectException e) {
            queue.fail(e);
        }
    }

    /** Repair signals a database's stream read. */
    private void signalled(String db, List<org.bson.BsonValue> ids) {
        repairs.signalled(db, ids);
    }

    /** Stops everything without waiting (see {@link #awaitStop}); a thread blocked on a dead socket ends at its read timeout. */
    @Override
    public void close() {
        coordinator.close();
        copies.close();
        repairs.close();
        synchronized (this) {
            if (scans != null) {
                scans.close();
            }
        }
        streams.stop();
    }

    /** Waits for the stream and copy threads to end after {@link #close()}. */
    boolean awaitStop(long waitMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + waitMs;
        boolean streamsDone = streams.awaitStop(deadline);
        return copies.awaitTermination(Math.max(1, deadline - System.currentTimeMillis())) && streamsDone;
    }

    @Override
    public String toString() {
        return "task " + ownership.index() + " of " + ownership.count() + " (" + collections.size() + " collections, "
                + streams.size() + " streams)";
    }
}
