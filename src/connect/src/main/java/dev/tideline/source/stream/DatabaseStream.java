package dev.tideline.source.stream;

import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.tideline.event.Namespace;
import dev.tideline.log.LogText;
import dev.tideline.source.capture.CollectionHandle;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.config.CaptureSettings.LargeEventPolicy;
import dev.tideline.source.stream.StreamPipeline.Opening;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ONE change stream for every collection a task captures in one database, or in every database
 * ({@link StreamScope}: {@code change.stream.scope}), on one thread: whatever the number of collections,
 * a task holds one cursor (one connection, while a getMore waits) per database, or one in all.
 * MongoDB reads the oplog once per stream, so many collection-level streams would each read all of it
 * (https://www.mongodb.com/docs/manual/administration/change-streams-production-recommendations/); a
 * deployment stream reads it once for all the task's databases.
 *
 * <p>A database-level stream needs the {@code changeStream} and {@code find} actions on the database
 * ({@code {db: <db>, collection: ""}}, e.g. the built-in {@code read} role); it never sees
 * {@code system.*} collections, and it is not invalidated by a drop or rename of a collection (only
 * by {@code dropDatabase}), so a dropped and re-created collection is simply followed. A deployment
 * stream needs those actions on every database ({@code {db: "", collection: ""}}) and is never invalidated:
 * a {@code dropDatabase} is reported for that database's collections and the others go on.
 *
 * <p>Offsets stay per collection. Each collection ("member") has its position; the stream opens at
 * the earliest and each member drops the events it already has ({@link StreamPosition#covers}), the
 * others bounded server-side ({@link StreamPipeline}). A collection joins (after its copy, on a
 * restart, when it is moved here from another task) through {@link #join}; joins are taken between
 * batches and at most every {@value #JOIN_DELAY_MS} ms, since each reopens the stream where the
 * earliest member stands. Quiet members move with the post-batch resume token and get paced
 * heartbeats ({@link HeartbeatPacer}). A batch's positions move only once it is handed over, so a
 * failure anywhere reopens from positions whose events are all in the queue.
 *
 * <p>A failure anywhere in a round closes the cursor and is handed to {@link StreamRecovery}, which
 * decides what follows ({@link StreamRecovery#decide}) and does it. Failures that belong to one
 * collection stay with it: lost history is found per position ({@link HistoryWindow}) and handed back
 * for that collection's policy; an event too large to send on a server without
 * {@code $changeStreamSplitLargeEvent}, or one the stage cannot split, is found, read without its
 * documents and skipped or its collection parked ({@link LargeEventPolicy}); a collection whose records
 * cannot be built is parked. An event that arrived in fragments is positioned so that the stream never
 * reopens at a fragment's token ({@link StreamPosition#afterSplitEvent}).
 * Transient errors reopen with back-off; a server without the split stage or pre-images is read
 * without them; what concerns the whole stream (refused credentials, an unknown error) fails the task
 * with the server's message.
 */
public final class DatabaseStream implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(DatabaseStream.class);
    static final long JOIN_DELAY_MS = 500;
    private static final long MIN_IDLE_SLEEP_MS = 10;

    /** How the stream reads. */
    public record Settings(int batchSize, int maxAwaitMs, long heartbeatIntervalMs, boolean preImages,
                           LargeEventPolicy largeEvents, boolean repairSignals) {
    }

    private record Join(CollectionHandle collection, BsonDocument filter, StreamPosition position, boolean afterCopy) {
    }

    /** How logs name the stream: its database, or "the deployment". */
    private final String db;
    private final Settings settings;
    private final StreamOutput out;
    private final ChangeStreamCursors cursors;
    private final BlockingQueue<Join> joins = new LinkedBlockingQueue<>();
    private final StreamMembers members;
    private final FragmentAssembler assembler = new FragmentAssembler();
    private final RepairWindows windows = new RepairWindows();
    private final StreamRecovery recovery;
    private volatile boolean stopped;
    private volatile int memberCount;
    private volatile boolean open;

    private MongoChangeStreamCursor<RawBsonDocument> cursor;
    /** Every event up to here has been routed for every member (handed over, or known to be had). */
    private StreamPosition readPosition;
    private long lastOpenMs;
    private long idleSleepMs = MIN_IDLE_SLEEP_MS;

    /** The stream of one database. */
    public DatabaseStream(String db, MongoDatabase database, Settings settings, StreamOutput out) {
        this(StreamScope.database(db), p -> database.watch(p, RawBsonDocument.class), settings, out, Thread::sleep);
    }

    /** The stream of the deployment: {@code client.watch()}, its collections in any database. */
    public static DatabaseStream deployment(MongoClient client, Settings settings, StreamOutput out) {
        return new DatabaseStream(StreamScope.DEPLOYMENT, p -> client.watch(p, RawBsonDocument.class), settings, out, Thread::sleep);
    }

    /** @param sleeper how recovery waits before the stream reopens */
    DatabaseStream(String db, MongoDatabase database, Settings settings, StreamOutput out, StreamRecovery.Sleeper sleeper) {
        this(StreamScope.database(db), p -> database.watch(p, RawBsonDocument.class), settings, out, sleeper);
    }

    private DatabaseStream(StreamScope scope, Function<List<BsonDocument>, ChangeStreamIterable<RawBsonDocument>> watch,
                           Settings settings, StreamOutput out, StreamRecovery.Sleeper sleeper) {
        this.db = scope.label();
        this.settings = settings;
        this.out = out;
        this.cursors = new ChangeStreamCursors(watch);
        this.members = new StreamMembers(db, settings.heartbeatIntervalMs());
        this.recovery = new StreamRecovery(scope, settings, members, out, cursors, assembler, new RecoveryAccess(), sleeper);
    }

    /**
     * Adds a collection, read from {@code position} on; what the stream reads of it goes to its handle. Any thread.
     *
     * @param afterCopy the position is a finished copy's stream start
     */
    public void join(CollectionHandle collection, BsonDocument filter, StreamPosition position, boolean afterCopy) {
        joins.add(new Join(collection, filter, position, afterCopy));
    }

    /** A repair chunk's window: read from its low watermark on (see {@link RepairWindow}); any thread. */
    public void openWindow(RepairWindow w) {
        windows.register(w);
    }

    /** The repair gave up on a window (its watermarks, if written, are then ignored); any thread. */
    public void dropWindow(String windowId) {
        windows.cancel(windowId);
    }

    /** Collections read now (for metrics). */
    public int members() {
        return memberCount;
    }

    /** Whether a cursor is open (for metrics). */
    public boolean isOpen() {
        return open;
    }

    public void stop() {
        stopped = true;
    }

    @Override
    public void run() {
        try {
            while (!stopped) {
                try {
                    if (!takeJoins()) {
                        continue;
                    }
                    if (cursor == null) {
                        openCursor(false);
                    }
                    StreamMembers.Batch batch = new StreamMembers.Batch();
                    long started = System.currentTimeMillis();
                    StreamPosition read = readBatch(batch);
                    handOver(batch, read);
                    heartbeats();
                    if (batch.deliveries.isEmpty()) {
                        idle(started);
                    } else {
                        idleSleepMs = MIN_IDLE_SLEEP_MS;
                    }
                } catch (RuntimeException e) {
                    closeCursor();
                    windows.batchLost();
                    if (stopped || !recovery.recover(e)) {
                        return;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeCursor();
            windows.failAll(new IllegalStateException("the change stream of " + db + " stopped"));
        }
    }

    /** @return false when there is nothing to read (the loop comes back) */
    private boolean takeJoins() throws InterruptedException {
        long now = System.currentTimeMillis();
        if (members.isEmpty()) {
            Join first = joins.poll(settings.maxAwaitMs(), TimeUnit.MILLISECONDS);
            if (first == null) {
                return false;
            }
            add(first, now);
        } else if (joins.isEmpty() || (cursor != null && now - lastOpenMs < JOIN_DELAY_MS)) {
            return true;
        }
        List<Join> taken = new ArrayList<>();
        joins.drainTo(taken);
        taken.forEach(j -> add(j, now));
        closeCursor(); // the stream reopens with them, where the earliest member stands
        return true;
    }

    private void add(Join j, long now) {
        members.add(j.collection(), j.filter(), j.position(), j.afterCopy(), now);
        memberCount = members.size();
    }

    private void openCursor(boolean trimmed) {
        Opening opening = recovery.plan(trimmed);
        cursor = cursors.open(opening, recovery.batchSize(trimmed), settings.maxAwaitMs(), recovery.preImages());
        readPosition = opening.start();
        assembler.reset();
        lastOpenMs = System.currentTimeMillis();
        open = true;
        log.debug("Change stream of {} opened {} for {} collection(s)", LogText.escape(db), opening.start(), members.size());
        out.opened(members.size());
    }

    /**
     * Reads what one round trip brings (up to a batch) into {@code batch}, routed per collection. Nothing
     * moves yet: positions move in {@link #handOver}.
     *
     * @return where the stream stands after this batch
     */
    private StreamPosition readBatch(StreamMembers.Batch batch) {
        StreamPosition read = readPosition;
        BsonDocument lastFragment = null;
        int limit = recovery.batchSize(false);
        int events = 0;
        boolean invalidated = false;
        long now = System.currentTimeMillis();
        while (events < limit) {
            if (events > 0 && cursor.available() == 0) {
                // Hand over what the last round trip returned instead of asking for more: under a steady trickle
                // an awaiting getMore answers with a few events every few ms and never comes back empty.
                break;
            }
            RawBsonDocument raw = cursor.tryNext();
            if (raw == null) {
                break;
            }
            RawChangeEvent event = RawChangeEvent.parse(raw);
            boolean split = event.isFragment();
            if (split) {
                lastFragment = event.token();
                RawBsonDocument whole = assembler.add(raw, event);
                if (whole == null) {
                    continue;
                }
                event = RawChangeEvent.parse(whole);
            }
            events++;
            if (event.token() == null) {
                throw new IllegalStateException("a change event of " + db + " has no _id (resume token): " + event.type());
            }
            StreamPosition at = split ? StreamPosition.afterSplitEvent(event.token(), event.clusterTime())
                    : StreamPosition.afterToken(event.token(), event.clusterTime());
            read = at;
            members.route(event, at, now, batch);
            windows.observe(event, collection -> members.positionIn(batch, collection), batch.deliveries, batch.signals);
            if ("invalidate".equals(event.type())) {
                invalidated = true; // the server closed the cursor; it reopens after this event
                break;
            }
        }
        if (invalidated) {
            closeCursor();
        } else if (!assembler.inProgress() && cursor.available() == 0) {
            BsonDocument postBatch = cursor.getResumeToken();
            // a post-batch token moves every member; one whose place in the order cannot be read moves none, nor
            // the last fragment's token of a batch that ended on a split event (never a position: see StreamPosition)
            if (postBatch != null && !postBatch.equals(lastFragment) && StreamPosition.clusterTimeOf(postBatch).isPresent()) {
                read = StreamPosition.max(read, StreamPosition.afterToken(postBatch, null));
            }
        }
        return read;
    }

    /** Publishes the batch, then moves the positions: a failure before leaves them where the queue has everything. */
    private void handOver(StreamMembers.Batch batch, StreamPosition read) throws InterruptedException {
        if (!batch.deliveries.isEmpty()) {
            out.publish(batch.deliveries);
        }
        Map<CollectionHandle, BsonTimestamp> recopied = new LinkedHashMap<>();
        batch.recopies.forEach((coll, renamedAt) -> recopied.put(members.handle(coll), renamedAt));
        members.handedOver(batch, read, System.currentTimeMillis());
        readPosition = read;
        recopied.forEach((c, renamedAt) -> c.recopy("renamed onto", renamedAt));
        windows.handedOver();
        batch.signals.forEach(out::signals);
        memberCount = members.size();
        recovery.handedOver(read);
    }

    private void heartbeats() throws InterruptedException {
        long now = System.currentTimeMillis();
        List<StreamOutput.Delivery> due = members.heartbeatsDue(now);
        if (!due.isEmpty()) {
            out.publish(due);
            members.sent(due, now);
        }
    }

    /** A server that answered an empty batch at once (it did not wait): back off, doubling, instead of spinning. */
    private void idle(long startedMs) throws InterruptedException {
        if (cursor != null && System.currentTimeMillis() - startedMs < settings.maxAwaitMs() / 2) {
            Thread.sleep(idleSleepMs);
            idleSleepMs = Math.min(settings.maxAwaitMs(), idleSleepMs * 2);
        }
    }

    private void closeCursor() {
        MongoChangeStreamCursor<RawBsonDocument> c = cursor;
        cursor = null;
        open = false;
        if (c != null) {
            try {
                c.close();
            } catch (RuntimeException e) {
                log.debug("Closing the change stream of {} failed (already broken): {}", LogText.escape(db), LogText.message(e.toString()));
            }
        }
    }

    /** What {@link StreamRecovery} may do to this stream. */
    private final class RecoveryAccess implements StreamRecovery.Stream {
        @Override
        public void open(boolean trimmed) {
            openCursor(trimmed);
        }

        @Override
        public RawBsonDocument tryNext() {
            return cursor.tryNext();
        }

        @Override
        public void close() {
            closeCursor();
        }

        @Override
        public void readTo(StreamPosition at) {
            readPosition = at;
        }

        @Override
        public void membersChanged() {
            memberCount = members.size();
        }

        @Override
        public boolean stopped() {
            return stopped;
        }
    }
}
