package dev.tideline.source.stream;

import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.changestream.FullDocument;
import com.mongodb.client.model.changestream.FullDocumentBeforeChange;
import dev.tideline.event.Namespace;
import dev.tideline.mongo.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.Captured;
import dev.tideline.source.SourceOffset;
import dev.tideline.source.config.CaptureSettings.LargeEventPolicy;
import dev.tideline.source.stream.StreamPipeline.Member;
import dev.tideline.source.stream.StreamPipeline.Opening;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ONE change stream for every collection a task captures in one database, on one thread: whatever the
 * number of collections, a task holds one cursor (one connection, while a getMore waits) per database.
 * MongoDB reads the oplog once per stream, so many collection-level streams would each read all of it
 * (https://www.mongodb.com/docs/manual/administration/change-streams-production-recommendations/).
 *
 * <p>A database-level stream needs the {@code changeStream} and {@code find} actions on the database
 * ({@code {db: <db>, collection: ""}}, e.g. the built-in {@code read} role); it never sees
 * {@code system.*} collections, and it is not invalidated by a drop or rename of a collection (only
 * by {@code dropDatabase}), so a dropped and re-created collection is simply followed.
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
 * <p>Failures that belong to one collection stay with it: lost history is found per position
 * ({@link HistoryWindow}) and handed back for that collection's policy; an event too large to send on
 * a server without {@code $changeStreamSplitLargeEvent} is found, read without its documents and
 * skipped or its collection parked ({@link LargeEventPolicy}); a collection whose records cannot be
 * built is parked. Transient errors reopen with back-off; what concerns the whole stream (refused
 * credentials, an unknown error) fails the task with the server's message.
 */
public final class DatabaseStream implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(DatabaseStream.class);
    static final long JOIN_DELAY_MS = 500;
    private static final long MIN_IDLE_SLEEP_MS = 10;
    private static final long PROBE_AWAIT_MS = 10;

    /** How the stream reads. */
    public record Settings(int batchSize, int maxAwaitMs, long heartbeatIntervalMs, boolean preImages,
                           LargeEventPolicy largeEvents) {
    }

    /** One item for one collection of this database. */
    public record Delivery(String collection, Captured item) {
    }

    /** Where the stream hands over what it read and reports what it cannot handle. Called on the stream's thread. */
    public interface Output {
        /** Hands a batch to Kafka, in order, all or nothing. @throws CollectionFailure when one collection's records cannot be built */
        void publish(List<Delivery> batch) throws InterruptedException;

        /** The history of a collection's position is gone; the stream no longer reads it. */
        void historyLost(String collection, StreamPosition position, boolean afterCopy, RuntimeException cause);

        /** A collection's documents were replaced without events (a rename onto it): it must be copied again. */
        void recopy(String collection, String reason);

        /** The stream stopped reading a collection (its control record is published). */
        void parked(String collection, String reason);

        /** A failure of the whole stream that waiting cannot cure: the task fails with it. */
        void failed(RuntimeException e);

        /** A transient failure; the stream reopens after {@code delayMs}. */
        void retrying(RuntimeException e, long delayMs);

        /** The stream (re)opened: the server answers. */
        void opened(int collections);
    }

    /** A failure building the records of one collection: the stream parks that collection, the others go on. */
    public static final class CollectionFailure extends RuntimeException {
        private final String collection;

        public CollectionFailure(String collection, RuntimeException cause) {
            super("records of " + collection + ": " + cause.getMessage(), cause);
            this.collection = collection;
        }

        public String collection() {
            return collection;
        }
    }

    private record Join(String collection, BsonDocument filter, StreamPosition position, boolean afterCopy) {
    }

    private static final class Tracked {
        final String collection;
        final BsonDocument filter;
        StreamPosition position;
        /** What the collection's last record carried. */
        StreamPosition published;
        long lastRecordMs;
        /** Joined at a finished copy's stream start, not yet read from: lost history then means the copy outlived the oplog. */
        boolean afterCopy;

        Tracked(Join j, long nowMs) {
            collection = j.collection();
            filter = j.filter();
            position = j.position();
            published = j.position();
            lastRecordMs = nowMs;
            afterCopy = j.afterCopy();
        }
    }

    private final String db;
    private final MongoDatabase database;
    private final Settings settings;
    private final Output out;
    private final BlockingQueue<Join> joins = new LinkedBlockingQueue<>();
    private final Map<String, Tracked> members = new HashMap<>();
    private final FragmentAssembler assembler = new FragmentAssembler();
    private final HeartbeatPacer pacer;
    private final Backoff backoff = new Backoff(1_000, 30_000);
    private volatile boolean stopped;
    private volatile int memberCount;
    private volatile boolean open;

    private MongoChangeStreamCursor<RawBsonDocument> cursor;
    /** Every event up to here has been routed for every member (handed over, or known to be had). */
    private StreamPosition readPosition;
    private boolean splitSupported = true;
    private boolean preImages;
    /** Reading one event per batch to find the one too large to send (see {@link #readPastTooLargeEvent}). */
    private boolean singleEvent;
    private int singleEventReads;
    private long lastOpenMs;
    private long idleSleepMs = MIN_IDLE_SLEEP_MS;

    public DatabaseStream(String db, MongoDatabase database, Settings settings, Output out) {
        this.db = db;
        this.database = database;
        this.settings = settings;
        this.out = out;
        this.preImages = settings.preImages();
        this.pacer = new HeartbeatPacer(settings.heartbeatIntervalMs());
    }

    public String database() {
        return db;
    }

    /**
     * Adds a collection, read from {@code position} on; any thread.
     *
     * @param afterCopy the position is a finished copy's stream start
     */
    public void join(String collection, BsonDocument filter, StreamPosition position, boolean afterCopy) {
        joins.add(new Join(collection, filter, position, afterCopy));
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
                    List<Delivery> batch = new ArrayList<>();
                    Map<String, StreamPosition> moved = new HashMap<>();
                    List<String> recopies = new ArrayList<>();
                    long started = System.currentTimeMillis();
                    StreamPosition read = readBatch(batch, moved, recopies);
                    handOver(batch, moved, read, recopies);
                    heartbeats();
                    if (batch.isEmpty()) {
                        idle(started);
                    } else {
                        idleSleepMs = MIN_IDLE_SLEEP_MS;
                    }
                } catch (RuntimeException e) {
                    closeCursor();
                    if (stopped || !recover(e)) {
                        return;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeCursor();
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
        Tracked previous = members.put(j.collection(), new Tracked(j, now));
        if (previous != null) {
            log.warn("Change stream of {}: {} joined again at {} (was at {})", db, j.collection(), j.position(), previous.position);
        }
        memberCount = members.size();
    }

    private void openCursor(boolean trimmed) {
        List<Member> list = new ArrayList<>(members.size());
        for (Tracked t : members.values()) {
            list.add(new Member(t.collection, t.filter, t.position));
        }
        Opening opening = StreamPipeline.plan(db, list, splitSupported, trimmed);
        ChangeStreamIterable<RawBsonDocument> it = database.watch(opening.pipeline(), RawBsonDocument.class)
                .fullDocument(FullDocument.UPDATE_LOOKUP)
                .batchSize(singleEvent || trimmed ? 1 : settings.batchSize())
                .maxAwaitTime(settings.maxAwaitMs(), TimeUnit.MILLISECONDS);
        if (preImages) {
            it = it.fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE);
        }
        StreamPosition start = opening.start();
        // startAfter, never resumeAfter: it also resumes after an invalidate event (resumeAfter answers 260 there)
        it = start.isToken() ? it.startAfter(start.token()) : it.startAtOperationTime(start.clusterTime());
        cursor = changeStream(it.withDocumentClass(RawBsonDocument.class).cursor());
        readPosition = start;
        assembler.reset();
        lastOpenMs = System.currentTimeMillis();
        open = true;
        log.debug("Change stream of {} opened {} for {} collection(s)", db, start, members.size());
        out.opened(members.size());
    }

    private static MongoChangeStreamCursor<RawBsonDocument> changeStream(MongoCursor<RawBsonDocument> raw) {
        if (raw instanceof MongoChangeStreamCursor<RawBsonDocument> changeStream) {
            return changeStream;
        }
        raw.close();
        throw new IllegalStateException("the MongoDB driver on the plugin's class path returned a " + raw.getClass().getName()
                + " for a change stream instead of a MongoChangeStreamCursor: install the driver version the plugin ships with");
    }

    /**
     * Reads what one round trip brings (up to a batch), routes it per collection and drops what each
     * collection already has. Nothing moves yet: positions move in {@link #handOver}.
     *
     * @return where the stream stands after this batch
     */
    private StreamPosition readBatch(List<Delivery> batch, Map<String, StreamPosition> moved, List<String> recopies) {
        StreamPosition read = readPosition;
        int limit = singleEvent ? 1 : settings.batchSize();
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
            if (event.isFragment()) {
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
            StreamPosition at = StreamPosition.afterToken(event.token(), event.clusterTime());
            read = at;
            route(event, at, now, batch, moved, recopies);
            if ("invalidate".equals(event.type())) {
                invalidated = true; // the server closed the cursor; it reopens after this event
                break;
            }
        }
        if (invalidated) {
            closeCursor();
        } else if (!assembler.inProgress() && cursor.available() == 0) {
            BsonDocument postBatch = cursor.getResumeToken();
            // a post-batch token moves every member; one whose place in the order cannot be read moves none
            if (postBatch != null && StreamPosition.clusterTimeOf(postBatch).isPresent()) {
                read = StreamPosition.max(read, StreamPosition.afterToken(postBatch, null));
            }
        }
        return read;
    }

    private void route(RawChangeEvent event, StreamPosition at, long now, List<Delivery> batch, Map<String, StreamPosition> moved,
                       List<String> recopies) {
        String type = event.type();
        if ("rename".equals(type) && event.destination() != null && event.destination().startsWith(db + ".")) {
            String target = event.destination().substring(db.length() + 1);
            Tracked t = members.get(target);
            if (t != null && !recopies.contains(target)) {
                String detail = "rename of " + db + "." + event.coll() + " onto " + db + "." + target + " at " + event.clusterTime()
                        + ": its documents were replaced without change events; the collection is copied again";
                log.warn("Change stream of {}: {}", db, detail);
                batch.add(new Delivery(target, new Captured.Control("renamed_into", detail,
                        SourceOffset.streamAt(moved.getOrDefault(target, t.position)))));
                recopies.add(target);
            }
        }
        String coll = event.coll();
        if (coll == null) {
            // dropDatabase and invalidate carry no collection: reported once, under the first member's partition
            Tracked first = members.values().stream().filter(m -> !recopies.contains(m.collection))
                    .min(Comparator.comparing(m -> m.collection)).orElse(null);
            if (first != null && ("dropDatabase".equals(type) || "invalidate".equals(type))) {
                log.warn("Change stream of {}: {} at {}", db, type, event.clusterTime());
                batch.add(new Delivery(first.collection, EventMapper.map(event, new Namespace(db, first.collection),
                        SourceOffset.streamAt(at), now)));
                moved.put(first.collection, at);
            }
            return;
        }
        Tracked m = members.get(coll);
        if (m == null || recopies.contains(coll)) {
            return; // not read here (parked, or leaving for a copy)
        }
        StreamPosition had = moved.getOrDefault(coll, m.position);
        if (had.covers(at)) {
            return; // this collection already has it (the stream opened behind it for another one)
        }
        Captured item = EventMapper.map(event, new Namespace(db, coll), SourceOffset.streamAt(at), now);
        if (item instanceof Captured.Control c) {
            log.warn("Change stream of {}: {}", db, c.detail());
        }
        batch.add(new Delivery(coll, item));
        moved.put(coll, at);
    }

    /** Publishes the batch, then moves the positions: a failure before leaves them where the queue has everything. */
    private void handOver(List<Delivery> batch, Map<String, StreamPosition> moved, StreamPosition read, List<String> recopies)
            throws InterruptedException {
        if (!batch.isEmpty()) {
            out.publish(batch);
        }
        long now = System.currentTimeMillis();
        moved.forEach((coll, at) -> {
            Tracked t = members.get(coll);
            if (t != null) {
                t.position = StreamPosition.max(t.position, at);
                t.published = t.position;
                t.lastRecordMs = now;
            }
        });
        readPosition = read;
        for (Tracked t : members.values()) {
            t.position = StreamPosition.max(t.position, read);
            t.afterCopy = false; // the stream read past its start: that history was there
        }
        for (String coll : recopies) {
            members.remove(coll);
            out.recopy(coll, "renamed onto");
        }
        memberCount = members.size();
        if (singleEvent && ++singleEventReads > settings.batchSize()) {
            // a whole batch read one by one without meeting it again: whatever it was is gone
            singleEvent = false;
            closeCursor();
        }
        backoff.reset();
    }

    private void heartbeats() throws InterruptedException {
        long now = System.currentTimeMillis();
        List<Tracked> due = pacer.due(members.values(), t -> t.lastRecordMs, t -> !t.published.covers(t.position), now);
        if (due.isEmpty()) {
            return;
        }
        List<Delivery> batch = new ArrayList<>(due.size());
        for (Tracked t : due) {
            batch.add(new Delivery(t.collection, new Captured.Heartbeat(SourceOffset.streamAt(t.position))));
        }
        out.publish(batch);
        for (Tracked t : due) {
            t.published = t.position;
            t.lastRecordMs = now;
        }
    }

    /** A server that answered an empty batch at once (it did not wait): back off, doubling, instead of spinning. */
    private void idle(long startedMs) throws InterruptedException {
        if (cursor != null && System.currentTimeMillis() - startedMs < settings.maxAwaitMs() / 2) {
            Thread.sleep(idleSleepMs);
            idleSleepMs = Math.min(settings.maxAwaitMs(), idleSleepMs * 2);
        }
    }

    /** @return false when the stream must end (the task is failed) */
    private boolean recover(RuntimeException e) throws InterruptedException {
        try {
            if (e instanceof CollectionFailure f) {
                onCollectionFailure(f);
                return !stopped;
            }
            return onFailure(e);
        } catch (RuntimeException again) {
            if (stopped) {
                return false;
            }
            if (MongoErrors.classify(again) == ErrorClass.RETRIABLE) {
                retry(again); // e.g. the server went away while the stream was finding a lost history
                return true;
            }
            again.addSuppressed(e);
            out.failed(again);
            return false;
        }
    }

    private void onCollectionFailure(CollectionFailure f) throws InterruptedException {
        RuntimeException cause = f.getCause() instanceof RuntimeException r ? r : f;
        ErrorClass kind = MongoErrors.classify(cause);
        if (kind == ErrorClass.RETRIABLE) {
            retry(cause);
            return;
        }
        if (kind == ErrorClass.AUTH) {
            out.failed(cause);
            stopped = true;
            return;
        }
        park(f.collection(), "its records cannot be built: " + cause);
    }

    /** @return false when the stream must end (the task fails) */
    private boolean onFailure(RuntimeException e) throws InterruptedException {
        if (MongoErrors.isEventTooLarge(e)) {
            readPastTooLargeEvent(e);
            return true;
        }
        if (splitSupported && MongoErrors.isUnknownPipelineStage(e)) {
            splitSupported = false;
            log.warn("Change stream of {}: the server has no $changeStreamSplitLargeEvent (MongoDB 7.0, or 6.0.9+): an event "
                    + "over 16 MB cannot be sent whole; large.event.policy={} applies to it ({})", db,
                    settings.largeEvents().name().toLowerCase(java.util.Locale.ROOT), e.getMessage());
            return true;
        }
        if (preImages && MongoErrors.isUnknownField(e)) {
            preImages = false;
            log.warn("Change stream of {}: the server does not know fullDocumentBeforeChange (MongoDB 6.0+): deletes carry no "
                    + "tenant header ({})", db, e.getMessage());
            return true;
        }
        ErrorClass kind = MongoErrors.classify(e);
        switch (kind) {
            case RETRIABLE -> {
                retry(e);
                return true;
            }
            case HISTORY_LOST -> {
                findLostHistory(e);
                return true;
            }
            default -> {
                if (e instanceof IllegalStateException && assembler.inProgress()) {
                    log.warn("Change stream of {}: {}; reopening before that event", db, e.getMessage());
                    assembler.reset();
                    return true;
                }
                out.failed(e);
                return false;
            }
        }
    }

    private void retry(RuntimeException e) throws InterruptedException {
        long delay = backoff.next();
        log.warn("Change stream of {} interrupted by a transient error (attempt {}), reopening in {} ms: {}", db,
                backoff.attempts(), delay, e.toString());
        out.retrying(e, delay);
        Thread.sleep(delay);
    }

    /**
     * The server no longer has the history of some position. Which members are affected is asked of the
     * server ({@link HistoryWindow}); those leave the stream for their lost-history policy, the others go on.
     */
    private void findLostHistory(RuntimeException cause) {
        List<StreamPosition> points = members.values().stream().map(t -> t.position.openingPoint()).distinct().sorted().toList();
        int first = HistoryWindow.firstReachable(points, this::opensAt);
        StreamPosition oldestKept = first < points.size() ? points.get(first) : null;
        List<Tracked> lost = new ArrayList<>();
        for (Tracked t : members.values()) {
            if (oldestKept == null || t.position.openingPoint().compareTo(oldestKept) < 0) {
                lost.add(t);
            }
        }
        if (lost.isEmpty()) {
            // every position opens now: the history vanished under a running cursor and the reopen resumes it
            log.warn("Change stream of {}: {} while reading, but every collection's position is still in the oplog; reopening",
                    db, cause.getMessage());
            return;
        }
        lost.sort(Comparator.comparing(t -> t.collection));
        for (Tracked t : lost) {
            members.remove(t.collection);
        }
        memberCount = members.size();
        log.warn("Change stream of {}: the history of {} collection(s) is no longer in the oplog ({}); the other {} go on",
                db, lost.size(), cause.getMessage(), members.size());
        for (Tracked t : lost) {
            out.historyLost(t.collection, t.position, t.afterCopy, cause);
        }
    }

    /** Whether a stream opens at {@code p} (its history is still in the oplog). */
    private boolean opensAt(StreamPosition p) {
        ChangeStreamIterable<RawBsonDocument> it = database.watch(List.of(), RawBsonDocument.class).batchSize(1)
                .maxAwaitTime(PROBE_AWAIT_MS, TimeUnit.MILLISECONDS);
        it = p.isToken() ? it.startAfter(p.token()) : it.startAtOperationTime(p.clusterTime());
        try (MongoChangeStreamCursor<RawBsonDocument> probe = changeStream(it.withDocumentClass(RawBsonDocument.class).cursor())) {
            probe.tryNext();
            return true;
        } catch (RuntimeException e) {
            if (MongoErrors.classify(e) == ErrorClass.HISTORY_LOST) {
                return false;
            }
            throw e;
        }
    }

    /**
     * An event is larger than the server may send (16 MB) and cannot be split. Reads on one event at a
     * time to find it, then reads it without its documents, and applies {@code large.event.policy} to its
     * collection: {@code skip} reports it (control record naming its {@code _id}) and reads on after it;
     * {@code park} stops reading that collection. The others go on either way; a restart meets the same
     * event again and decides the same, so no policy fails the task over and over.
     */
    private void readPastTooLargeEvent(RuntimeException cause) throws InterruptedException {
        if (!singleEvent) {
            singleEvent = true; // the batch that failed holds it somewhere: read on one event at a time
            singleEventReads = 0;
            log.warn("Change stream of {}: an event is too large to send ({}); reading one event at a time to find it", db,
                    cause.getMessage());
            return;
        }
        // the next event after readPosition is the one: read it without its documents
        openCursor(true);
        RawBsonDocument raw = cursor.tryNext();
        if (raw == null) {
            closeCursor();
            return; // not there yet: the next round finds it again
        }
        RawChangeEvent event = RawChangeEvent.parse(raw);
        StreamPosition at = StreamPosition.afterToken(event.token(), event.clusterTime());
        closeCursor();
        singleEvent = false;
        Tracked m = event.coll() == null ? null : members.get(event.coll());
        String what = event.type() + " of _id " + (event.documentId() == null ? "?" : event.documentId().toString())
                + " in " + db + "." + event.coll() + " at " + event.clusterTime();
        if (m != null && settings.largeEvents() == LargeEventPolicy.PARK) {
            park(m.collection, "the " + what + " is larger than MongoDB can send (16 MB) and this server cannot split it "
                    + "($changeStreamSplitLargeEvent needs MongoDB 7.0, or 6.0.9+). large.event.policy=park: this collection "
                    + "stops here; set large.event.policy=skip to read on past it, or reset the collection's offset to copy it again");
        } else if (m != null) {
            String detail = "the " + what + " is larger than MongoDB can send (16 MB) and this server cannot split it "
                    + "($changeStreamSplitLargeEvent needs MongoDB 7.0, or 6.0.9+): SKIPPED (large.event.policy=skip). The "
                    + "destination keeps the document's previous version until its next change; reset this collection's offset "
                    + "to copy it again";
            log.warn("Change stream of {}: {}", db, detail);
            out.publish(List.of(new Delivery(m.collection, new Captured.Control("event_too_large", detail, SourceOffset.streamAt(at)))));
            m.position = StreamPosition.max(m.position, at);
            m.published = m.position;
            m.lastRecordMs = System.currentTimeMillis();
        }
        readPosition = at;
        for (Tracked t : members.values()) {
            t.position = StreamPosition.max(t.position, at);
        }
    }

    /** Stops reading a collection: a control record says why and what to do; its position stays where it was. */
    private void park(String coll, String reason) throws InterruptedException {
        Tracked t = members.get(coll);
        if (t == null) {
            return;
        }
        String detail = db + "." + coll + " is PARKED: " + reason;
        log.error("Change stream of {}: {}. The other collections go on.", db, detail);
        out.publish(List.of(new Delivery(coll, new Captured.Control("parked", detail, SourceOffset.streamAt(t.published)))));
        members.remove(coll);
        memberCount = members.size();
        out.parked(coll, reason);
    }

    private void closeCursor() {
        MongoChangeStreamCursor<RawBsonDocument> c = cursor;
        cursor = null;
        open = false;
        if (c != null) {
            try {
                c.close();
            } catch (RuntimeException e) {
                log.debug("Closing the change stream of {} failed (already broken): {}", db, e.toString());
            }
        }
    }

    /** The members and their positions, for tests and logs. */
    Map<String, StreamPosition> positions() {
        Map<String, StreamPosition> m = new LinkedHashMap<>();
        members.values().stream().sorted(Comparator.comparing(t -> t.collection)).forEach(t -> m.put(t.collection, t.position));
        return m;
    }
}
