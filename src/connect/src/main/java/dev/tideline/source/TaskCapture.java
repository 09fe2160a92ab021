package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.health.SourceTaskMetrics;
import dev.tideline.log.LogText;
import dev.tideline.mongo.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.StartPlanner.Phase;
import dev.tideline.source.StartPlanner.Plan;
import dev.tideline.source.config.CaptureSettings;
import dev.tideline.source.config.CaptureSettings.LostHistoryPolicy;
import dev.tideline.source.config.SourceConfig;
import dev.tideline.source.stream.DatabaseStream;
import dev.tideline.source.stream.StreamPosition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one source task captures, with a bounded number of threads and connections whatever the
 * number of collections: one change stream per database ({@link DatabaseStream}), copies on a pool of
 * {@code backfill.max.concurrent} ({@link CollectionCopies}), date scans on as many threads
 * ({@link CollectionScans}), and one thread that finds the task's collections and carries out the
 * decisions that need a round trip (this class, on its {@link Coordinator}).
 *
 * <p>The task finds its own collections: it lists the included databases now and every
 * {@code collection.discovery.interval.ms}, keeps those {@link TaskOwnership} gives it, reads their
 * stored offsets and starts each where {@link StartPlanner} says, without touching the others. A server
 * that does not answer is listed again with back-off (health {@code down} meanwhile); credentials it
 * refuses fail the task with what to fix.
 *
 * <p>Lost history is decided per collection: a copy that outlived the oplog window is parked with what
 * to do (copying again would only outlive it again); otherwise {@code lost.history.policy} applies.
 */
final class TaskCapture implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TaskCapture.class);
    /** How often finished repairs are checked for their committed offset (then marked done in their signal). */
    private static final long REPAIR_MARKS_MS = 2_000;

    private final SourceConfig config;
    private final MongoClient client;
    private final TaskOwnership ownership;
    private final OffsetStorageReader offsets;
    private final RecordQueue queue;
    private final SourceTaskMetrics metrics;
    private final String producer;
    private final TaskThreads threads;
    private final IntSupplier connections;
    private final Publisher publisher;
    private final Coordinator coordinator;
    private final CollectionCopies copies;
    private final CollectionRepairs repairs;
    private final SplitCopies splitCopies;
    /** every collection the last listing found (this task's and the others'), for the split copies */
    private volatile List<Namespace> listed = List.of();
    /** the metrics of collections this task copies chunks of without capturing them */
    private final Map<Namespace, CaptureMetrics> chunkMetrics = new ConcurrentHashMap<>();
    private final StreamSupport streamSupport = new StreamSupport();
    private final SkipStarts skipStarts;
    private final Backoff discoveryBackoff;
    private final Map<Namespace, CapturedCollection> collections = new ConcurrentHashMap<>();
    private final Map<String, DatabaseStream> streams = new ConcurrentHashMap<>();
    private final List<Thread> streamThreads = new ArrayList<>();
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
        this.producer = producer;
        this.threads = threads;
        this.connections = connections;
        this.publisher = new Publisher(queue);
        this.coordinator = new Coordinator(threads, queue::fail);
        this.copies = new CollectionCopies(client, config, publisher, threads, new CopyOwner(), ownership.count());
        this.splitCopies = new SplitCopies(ownership, offsets, copies::submitChunk, publisher, new SplitCapture(), this::markerPartitions);
        this.repairs = new CollectionRepairs(client, new CollectionRepairs.Capture(collections::get, collections::values, ownership::owns,
                this::streamOf, this::markerPartitions, ns -> SourceOffset.repair(offsets.offset(SourcePartition.of(ns)))), connector,
                config.repair().chunkSize(), config.repair().queueMax(), threads);
        this.discoveryBackoff = new Backoff(1_000, Math.max(1_000, config.selection().discoveryIntervalMs()));
        metrics.gauges(new TaskGauges(streams, copies, collections, threads, connections));
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

    private int markerPartitions(CapturedCollection c) {
        return config.topics().markerPartitions().forTopic(c.records().topic());
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
                boolean useStreams = useStreams(mine.get(0));
                if (useStreams && skipStartsKept) {
                    skipStarts.ensure(listed, () -> storedOffsets(listed).values().stream().anyMatch(Objects::nonNull));
                }
                Map<Map<String, Object>, Map<String, Object>> stored = storedOffsets(mine);
                log.info("Task {} of {}: {} new collection(s) to capture: {}", ownership.index(), ownership.count(), mine.size(),
                        LogText.message(mine.size() <= 20 ? mine : mine.subList(0, 20) + " ..."));
                for (Namespace ns : mine) {
                    begin(ns, stored.get(SourcePartition.of(ns)), useStreams);
                }
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

    /** Whether the source serves change streams, decided once by opening one (mode=auto), never by a failure that waiting cures. */
    private boolean useStreams(Namespace probe) {
        CaptureSettings.Mode mode = config.capture().mode();
        if (mode != CaptureSettings.Mode.AUTO) {
            return mode == CaptureSettings.Mode.CHANGE_STREAM;
        }
        return streamSupport.available(client.getDatabase(probe.db()));
    }

    private Map<Map<String, Object>, Map<String, Object>> storedOffsets(List<Namespace> namespaces) {
        List<Map<String, Object>> partitions = new ArrayList<>();
        namespaces.forEach(ns -> partitions.add(SourcePartition.of(ns)));
        Map<Map<String, Object>, Map<String, Object>> found = offsets.offsets(partitions);
        return found == null ? new HashMap<>() : found;
    }

    private RecordFactory recordsFor(Namespace ns) {
        return new RecordFactory(ns, config.topics().namer().topicFor(ns), config.topics().heartbeatTopic(),
                config.topics().controlTopic(), config.capture().outputFormat(), config.capture().tenantField(),
                config.capture().deleteTombstone(), producer);
    }

    private void begin(Namespace ns, Map<String, Object> storedMap, boolean useStreams) throws InterruptedException {
        RecordFactory records = recordsFor(ns);
        if (config.peer().clusterId().isPresent()) {
            // the origin labeler resumes from the clock kept in the collection's offset
            records.withPeerTagging(new PeerOriginTagger(config.peer(), client.getDatabase(ns.db()), ns.coll(), storedMap));
        }
        CaptureMetrics cm = new CaptureMetrics(metrics.collection(ns.fullName(), ns.db()));
        SourceOffset stored = null;
        if (storedMap != null) {
            try {
                stored = SourceOffset.fromMap(storedMap);
            } catch (InvalidOffsetException e) {
                CapturedCollection c = new CapturedCollection(ns, records, cm, config.capture().filterFor(ns), null);
                collections.put(ns, c);
                c.state(CapturedCollection.State.PARKED);
                cm.parked();
                log.error("{} is PARKED: its stored offset cannot be used ({}). Reset it (PATCH or DELETE "
                        + "/connectors/<name>/offsets with the connector stopped); the other collections go on.",
                                LogText.escape(ns), LogText.message(e.getMessage()));
                return;
            }
        }
        records.withRepair(SourceOffset.repair(storedMap)); // read by fromMap above: valid
        CapturedCollection c = new CapturedCollection(ns, records, cm, config.capture().filterFor(ns), stored);
        collections.put(ns, c);
        Plan plan = StartPlanner.plan(stored, config.capture().mode(), config.capture().initialSync(), useStreams,
                () -> skipStarts.startOf(ns));
        log.info("Capture of {} -> topic {}: {} from {}", LogText.escape(ns), records.topic(), plan.phase(),
                LogText.escape(plan.offset() == null ? "its initial sync" : plan.offset()));
        switch (plan.phase()) {
            case BACKFILL -> copies.submit(c, plan.offset());
            case STREAM -> {
                if (stored == null) {
                    // a new collection streaming from a start time: commit that start now
                    publisher.publish(c, List.of(new Captured.Heartbeat(plan.offset())));
                }
                stream(c, plan.offset());
            }
            case SCAN -> scans().submit(c, plan.offset());
            default -> throw new IllegalStateException("unknown phase " + plan.phase());
        }
    }

    private void stream(CapturedCollection c, SourceOffset from) {
        c.state(CapturedCollection.State.STREAMING);
        c.metrics().opened(Phase.STREAM, null);
        streamOf(c.ns().db()).join(c.ns().coll(), c.filter(), from.streamPosition(), from.isAfterCopy());
    }

    private synchronized DatabaseStream streamOf(String db) {
        DatabaseStream existing = streams.get(db);
        if (existing != null) {
            return existing;
        }
        CaptureSettings capture = config.capture();
        DatabaseStream s = new DatabaseStream(db, client.getDatabase(db), new DatabaseStream.Settings(capture.batchSize(),
                capture.maxAwaitMs(), capture.heartbeatIntervalMs(), capture.tenantField() != null, capture.largeEventPolicy(),
                config.repair().enabled()),
                new DatabaseStreamReports(db, this, publisher, copies, queue, metrics,
                        new DropMarkers(capture.dropPolicy(), this::markerPartitions)));
        streams.put(db, s);
        streamThreads.add(threads.start(s, "stream", true));
        return s;
    }

    private synchronized CollectionScans scans() {
        if (scans == null) {
            scans = new CollectionScans(new DateScanReaders(config, client), publisher, threads, config.capture().backfillMaxConcurrent(),
                    config.scan().intervalMs(), new CopyOwner());
        }
        return scans;
    }

    /** The collection {@code coll} of {@code db} this task captures; a stream reading another is a bug. */
    CapturedCollection collection(String db, String coll) {
        CapturedCollection c = collections.get(new Namespace(db, coll));
        if (c == null) {
            throw new IllegalStateException("the change stream of " + db + " read " + coll + ", which this task does not capture");
        }
        return c;
    }

    void historyLost(CapturedCollection c, StreamPosition position, boolean afterCopy, RuntimeException cause) {
        String db = c.ns().db();
        if (afterCopy) {
            park(c, "its copy took longer than the oplog window: the copy started at " + position + " and the oplog no longer "
                    + "reaches back to it, so the changes made during the copy cannot be read (" + cause.getMessage() + "). Copying "
                    + "again would outlive the window again. Make the oplog hold more than the copy takes (replSetResizeOplog, "
                    + "or storage.oplogMinRetentionHours), or run fewer copies at once (backfill.max.concurrent), then reset this "
                    + "collection's offset (DELETE /connectors/<name>/offsets with the connector stopped) to copy it again");
            return;
        }
        LostHistoryPolicy policy = config.capture().lostHistoryPolicy();
        c.metrics().historyLost(policy != LostHistoryPolicy.LATEST);
        String what = "the change stream of " + c.ns() + " can no longer resume from " + position + " (" + cause.getMessage() + ")";
        switch (policy) {
            case FAIL -> queue.fail(new ConnectException(what + ". lost.history.policy=fail: fix by setting lost.history.policy="
                    + "resnapshot (copy the collection again) or latest, or reset this collection's offset "
                    + "(DELETE/PATCH /connectors/<name>/offsets).", cause));
            case RESNAPSHOT -> coordinator.carryOut("the lost-history policy of " + c.ns(), () -> {
                log.warn("LOST HISTORY: {}. Policy resnapshot: copying the collection again, then streaming.", LogText.message(what));
                publisher.publish(c, List.of(new Captured.Control("history_lost", what + "; policy resnapshot",
                        SourceOffset.streamAt(position))));
                copies.submit(c, null);
            });
            case LATEST -> coordinator.carryOut("the lost-history policy of " + c.ns(), () -> {
                BsonTimestamp now = ServerClock.streamStart(client.getDatabase(db));
                log.warn("LOST HISTORY: {}. Policy latest: streaming from {}; changes in the gap are NOT captured.",
                        LogText.message(what), now);
                SourceOffset from = SourceOffset.streamFrom(now);
                publisher.publish(c, List.of(new Captured.Control("history_lost", what + "; policy latest", from)));
                stream(c, from);
            });
            default -> throw new IllegalStateException("unknown policy " + policy);
        }
    }

    /** Stops capturing a collection for a reason of its own; the others go on. */
    private void park(CapturedCollection c, String reason) {
        String detail = c.ns() + " is PARKED: " + reason;
        log.error("{}. The task's other collections go on.", LogText.message(detail));
        c.state(CapturedCollection.State.PARKED);
        c.metrics().parked();
        SourceOffset at = c.position();
        if (at != null) {
            try {
                publisher.publish(c, List.of(new Captured.Control("parked", detail, at)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Repair signals a database's stream read. */
    void signalled(String db, List<org.bson.BsonValue> ids) {
        repairs.signalled(db, ids);
    }

    /** What copies and scans report back. */
    private final class CopyOwner implements CollectionCopies.Owner {
        @Override
        public void copied(CapturedCollection c, BsonTimestamp streamStart) {
            c.metrics().streaming();
            stream(c, SourceOffset.streamAfterCopy(streamStart));
        }

        @Override
        public void split(CapturedCollection c, CopyPlan plan) {
            splitCopies.ownerSplit(c, plan);
        }

        @Override
        public void park(CapturedCollection c, String reason) {
            TaskCapture.this.park(c, reason);
        }

        @Override
        public void fail(ConnectException e) {
            queue.fail(e);
        }
    }

    /** What the split copies need of this task. */
    private final class SplitCapture implements SplitCopies.Capture {
        @Override
        public List<Namespace> listed() {
            return listed;
        }

        @Override
        public CapturedCollection owned(Namespace ns) {
            return collections.get(ns);
        }

        @Override
        public CapturedCollection chunkCapture(Namespace ns, Map<String, Object> partition, SourceOffset stored) {
            CapturedCollection c = collections.get(ns);
            if (c != null) {
                return new CapturedCollection(ns, c.records().forChunk(partition), c.metrics(), c.filter(), stored);
            }
            CaptureMetrics cm = chunkMetrics.computeIfAbsent(ns, n -> new CaptureMetrics(metrics.collection(n.fullName(), n.db())));
            return new CapturedCollection(ns, recordsFor(ns).forChunk(partition), cm, config.capture().filterFor(ns), stored);
        }

        @Override
        public void copied(CapturedCollection c, CopyPlan plan) {
            new CopyOwner().copied(c, plan.streamStart());
        }
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
        streams.values().forEach(DatabaseStream::stop);
        synchronized (this) {
            // a stream blocked handing a batch to a queue nobody polls any more, or waiting on the server
            streamThreads.forEach(Thread::interrupt);
        }
    }

    /** Waits for the stream and copy threads to end after {@link #close()}. */
    boolean awaitStop(long waitMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + waitMs;
        List<Thread> ts;
        synchronized (this) {
            ts = new ArrayList<>(streamThreads);
        }
        for (Thread t : ts) {
            t.join(Math.max(1, deadline - System.currentTimeMillis()));
        }
        boolean copiesDone = copies.awaitTermination(Math.max(1, deadline - System.currentTimeMillis()));
        return copiesDone && ts.stream().noneMatch(Thread::isAlive);
    }

    @Override
    public String toString() {
        return "task " + ownership.index() + " of " + ownership.count() + " (" + collections.size() + " collections, "
                + streams.size() + " streams)";
    }
}
