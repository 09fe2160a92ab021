package dev.tideline.source;

import com.mongodb.ClientSessionOptions;
import com.mongodb.ReadConcern;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.IdScope;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.mongo.BsonOrder;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.repair.RepairRequest;
import dev.tideline.source.repair.RepairSignals;
import dev.tideline.source.stream.DatabaseStream;
import dev.tideline.source.stream.RepairWindow;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * One repair as it goes ({@link CollectionRepairs} runs it), chunk after chunk, a few at a time: while the stream
 * reads up to one chunk's high watermark, the next chunks' watermarks are written and their rows selected. Each low
 * watermark comes after the previous chunk's high watermark in the log, so the windows never overlap, and each chunk
 * still goes out at its own high watermark. A chunk counts as done only once its window closed; a failure drops the
 * windows still open and goes on after the last closed chunk.
 */
final class RepairRun {
    private static final long WINDOW_WAIT_MS = 120_000;
    /** Chunks read ahead of the stream: memory is at most this many chunks of rows. */
    private static final int IN_FLIGHT = 2;

    /** A window the stream did not close in time (e.g. the server is unreachable): the chunk is read again. */
    static final class WindowNotClosed extends RuntimeException {
        WindowNotClosed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** A chunk whose watermarks are written and whose rows wait in its window for the stream. */
    private record Pending(DatabaseStream stream, String windowId, RepairWindow window, Chunking chunking) {
    }

    private final MongoClient client;
    private final CollectionRepairs.Capture capture;
    private final String connector;
    private final int chunkSize;
    private final CollectionCapture c;
    private final RepairRequest r;
    /** The first low watermark: set on the stream's thread when its window opens, read by the windows after it. */
    private volatile BsonTimestamp epoch;
    /** Where the next chunk is selected from. */
    private BsonValue last;
    /** The epoch and position after the last chunk whose window closed: where a failed chunk starts again. */
    private BsonTimestamp closedEpoch;
    private BsonValue closedLast;
    /** Chunks whose marks are written, oldest first: the first is the one the stream sends next. */
    private final Deque<Pending> pending = new ArrayDeque<>();
    private int chunks;
    private long copied;
    private long deleted;

    RepairRun(MongoClient client, CollectionRepairs.Capture capture, String connector, int chunkSize, CollectionCapture c,
              RepairRequest r, BsonTimestamp epoch, BsonValue last) {
        this.client = client;
        this.capture = capture;
        this.connector = connector;
        this.chunkSize = chunkSize;
        this.c = c;
        this.r = r;
        this.epoch = epoch;
        this.last = last;
        this.closedEpoch = epoch;
        this.closedLast = last;
    }

    static MongoCollection<BsonDocument> signals(MongoClient client, String db) {
        return client.getDatabase(db).getCollection(RepairSignals.COLLECTION, BsonDocument.class);
    }

    /** The last {@code _id} of the last chunk sent (null before the first): where the repair stands. */
    BsonValue sentUpTo() {
        return closedLast;
    }

    int chunks() {
        return chunks;
    }

    long copied() {
        return copied;
    }

    long deleted() {
        return deleted;
    }

    /**
     * Sends one chunk, with up to {@value #IN_FLIGHT} chunks' watermarks and rows on their way (several windows can
     * close in one batch of the stream). @return true when it was the last
     */
    boolean step() throws InterruptedException {
        try {
            while (pending.size() < IN_FLIGHT && (pending.isEmpty() || !pending.peekLast().chunking.last)) {
                pending.addLast(begin());
            }
            return finish(pending.peekFirst());
        } catch (RuntimeException | InterruptedException e) {
            abandon();
            throw e;
        }
    }

    /** Writes the low watermark, selects the chunk, hands it to its window and writes the high watermark. */
    private Pending begin() {
        String db = c.ns().db();
        String windowId = UUID.randomUUID().toString();
        DatabaseStream stream = capture.streamOf().apply(db);
        Chunking chunking = new Chunking();
        RepairWindow window = new RepairWindow(windowId, c.ns(), new Emitter(chunking));
        BsonDocument mark = new BsonDocument("_id", new BsonDocument(RepairSignals.WINDOW_KEY, new BsonString(windowId)));
        stream.openWindow(window);
        try (ClientSession session = client.startSession(ClientSessionOptions.builder().causallyConsistent(true).build())) {
            signals(client, db).insertOne(session, mark.clone().append("connector", new BsonString(connector))
                    .append("collection", new BsonString(c.ns().coll())).append("signal", r.signal())
                    .append("at", new org.bson.BsonDateTime(System.currentTimeMillis())));
            RepairWindow.Chunk selected = select(session, chunking);
            window.offer(selected);
            signals(client, db).deleteOne(session, mark);
        } catch (RuntimeException e) {
            stream.dropWindow(windowId);
            throw e;
        }
        last = chunking.lastAfter;
        return new Pending(stream, windowId, window, chunking);
    }

    /** Waits until the stream sent the chunk at its high watermark. @return true when it was the last */
    private boolean finish(Pending p) throws InterruptedException {
        try {
            p.window.closed().get(WINDOW_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new WindowNotClosed("the change stream of " + c.ns().db() + " did not read the chunk's watermarks within "
                    + WINDOW_WAIT_MS + " ms", e);
        }
        chunks++;
        copied += p.chunking.kept;
        deleted += p.chunking.gone;
        closedEpoch = p.chunking.epoch;
        closedLast = p.chunking.lastAfter;
        pending.removeFirst();
        return p.chunking.last;
    }

    /** A chunk failed: the windows still open are dropped; the repair goes on after the last closed chunk. */
    private void abandon() {
        for (Pending p; (p = pending.pollFirst()) != null; ) {
            p.stream.dropWindow(p.windowId);
        }
        epoch = closedEpoch;
        last = closedLast;
    }

    private RepairWindow.Chunk select(ClientSession session, Chunking chunking) {
        MongoCollection<RawBsonDocument> coll = client.getDatabase(c.ns().db())
                .getCollection(c.ns().coll(), RawBsonDocument.class).withReadConcern(ReadConcern.MAJORITY);
        List<RawBsonDocument> rows = new ArrayList<>();
        List<BsonValue> asked = List.of();
        if (r.scope() instanceof RepairRequest.Ids ids) {
            asked = RepairSignals.idsAfter(ids.ids(), last, chunkSize);
            BsonDocument in = new BsonDocument("_id", new BsonDocument("$in", new BsonArray(asked)));
            coll.find(session, IdOrder.and(c.filter(), in)).into(rows);
            chunking.last = asked.isEmpty() || BsonOrder.compare(asked.get(asked.size() - 1), ids.ids().get(ids.ids().size() - 1)) == 0;
            chunking.lastAfter = asked.isEmpty() ? last : asked.get(asked.size() - 1);
        } else {
            BsonDocument query = IdOrder.and(c.filter(), IdOrder.after(last));
            if (r.scope() instanceof RepairRequest.Range range) {
                query = IdOrder.and(query, IdOrder.and(IdOrder.atOrAfter(range.from()), IdOrder.before(range.to())));
            }
            coll.find(session, query).sort(new BsonDocument("_id", new BsonInt32(1))).limit(chunkSize).into(rows);
            chunking.last = rows.size() < chunkSize;
            chunking.lastAfter = rows.isEmpty() ? last : rows.get(rows.size() - 1).get("_id");
        }
        return new RepairWindow.Chunk(rows, asked);
    }

    /** What the stream sends at the watermarks; on the stream's thread. */
    private final class Emitter implements RepairWindow.Emitter {
        private final Chunking chunking;

        Emitter(Chunking chunking) {
            this.chunking = chunking;
        }

        @Override
        public List<Captured> atLow(BsonTimestamp low, SourceOffset position) {
            BsonTimestamp first = epoch;
            if (first == null) {
                epoch = low; // the windows after this one, opened before it closes, read it here
            }
            chunking.epoch = first != null ? first : low;
            if (first != null || scope() == null) {
                return List.of();
            }
            return List.of(new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.BEGIN, c.ns(), low,
                    capture.markerPartitions().applyAsInt(c), scope()), position));
        }

        @Override
        public List<Captured> atHigh(BsonTimestamp high, SourceOffset position, List<RawBsonDocument> kept, List<BsonValue> gone) {
            long now = System.currentTimeMillis();
            List<Captured> out = new ArrayList<>(kept.size() + gone.size() + 2);
            for (RawBsonDocument row : kept) {
                out.add(new Captured.Change(ChangeEvent.read(c.ns(), row.get("_id"), row, high, now), position));
            }
            for (BsonValue id : gone) {
                out.add(new Captured.Change(ChangeEvent.delete(c.ns(), id, high, now), position));
            }
            chunking.kept = kept.size();
            chunking.gone = gone.size();
            RepairProgress p = c.repair().start(r.signal()).began(chunking.epoch).copiedUpTo(chunking.lastAfter);
            if (chunking.last) {
                if (scope() != null) {
                    out.add(new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, c.ns(), chunking.epoch,
                            capture.markerPartitions().applyAsInt(c), scope()), position));
                }
                p = p.finished();
            }
            out.add(new Captured.RepairStep(position, p));
            return out;
        }

        /** The markers' scope; null for listed ids (each not found gets its delete, nothing is swept). */
        private IdScope scope() {
            if (r.scope() instanceof RepairRequest.Range range) {
                return new IdScope(range.from(), range.to());
            }
            return r.scope() instanceof RepairRequest.Whole ? IdScope.ALL : null;
        }
    }

    /** One chunk's figures, filled in by the selecting thread and the stream's thread in turn. */
    private static final class Chunking {
        volatile BsonTimestamp epoch;
        volatile BsonValue lastAfter;
        volatile boolean last;
        volatile int kept;
        volatile int gone;
    }
}
