package dev.tideline.source;

import com.mongodb.ClientSessionOptions;
import com.mongodb.ReadConcern;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.log.LogText;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionReader;
import dev.tideline.source.capture.CopyPlan;
import dev.tideline.source.capture.CopyStart;
import dev.tideline.source.capture.SourceOffset;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies a collection's existing documents in {@code _id} order, a batch per round trip, each copy a
 * {@code read} change whose offset records the last copied id: a restart continues after it instead
 * of starting over. Each copy carries the stream start as its cluster time, so a sink's stale guard
 * orders it before every change the stream replays afterwards.
 *
 * <p>Reads causally after the stream start: majority read concern with {@code afterClusterTime} set to
 * it (to the event's cluster time when the start is just after an event, {@link CopyStart#readsAfter}) through a
 * causally consistent session, so a secondary that lags answers only once it has every
 * write up to the stream start (https://www.mongodb.com/docs/manual/core/causal-consistency-read-write-concerns/);
 * whatever it then returns is at least as new as the start, and the stream replays everything after.
 *
 * <p>One {@code find} cursor in {@code _id} order with a batch size, not an aggregation (a batch stays
 * bounded: {@code getMore} honours {@code batchSize}) and not a query per batch: one cursor is one index
 * scan that each {@code getMore} continues, where a query per batch is planned, seeks its start and
 * opens a cursor again every time, and a plan that is not an {@code _id} range scan (a filter the
 * index does not serve) reads the collection again per batch. The cursor is read one batch ahead ({@link ReadAhead}), so
 * the server sends the next batch while this one becomes records. If the cursor dies (idle timeout while
 * Kafka is slow, a failover), the capture reopens the backfill after the last copied {@code _id}.
 *
 * <p>Every copy ends with a {@code resnapshot.complete} marker before the switch to streaming (the
 * {@code begin} marker went out before its first document): the Tideline sink then removes what the
 * copy did not find, so a copy converges the destination whether it is the first, one after a crash
 * before any offset was committed, or one after a lost history.
 *
 * <p>A chunk of a copy split across tasks ({@link CopyPlan}) is read the same way over its {@code _id}
 * range, and ends with the chunk's done offset instead: its owner sends the complete marker once every
 * chunk is copied.
 */
final class BackfillReader implements CollectionReader {
    private static final Logger log = LoggerFactory.getLogger(BackfillReader.class);
    private static final BsonDocument BY_ID = new BsonDocument("_id", new BsonInt32(1));
    private static final long PROGRESS_EVERY_MS = 10_000;

    private final MongoClient client;
    private final MongoCollection<RawBsonDocument> collection;
    private final Namespace ns;
    private final BsonDocument filter;
    private final int batchSize;
    private final BsonTimestamp streamStart;
    private final BackfillProgress progress;
    private final int markerPartitions;
    /** the chunk of a split copy this reads, or null for the whole collection */
    private final CopyPlan.Chunk chunk;
    private final java.util.concurrent.ThreadFactory threads;
    private BsonValue lastId;
    private ReadAhead<RawBsonDocument> cursor;
    private boolean finished;
    private long lastLogMs;

    /**
     * @param from             the backfill position to continue from
     * @param markerPartitions the partitions of the change topic the complete marker goes to
     * @param chunk            the chunk of a split copy to read, or null for the whole collection
     * @param threads          where the read-ahead thread comes from
     */
    BackfillReader(MongoClient client, Namespace ns, BsonDocument filter, int batchSize, SourceOffset from, int markerPartitions,
                   CopyPlan.Chunk chunk, BackfillProgress progress, java.util.concurrent.ThreadFactory threads) {
        this.client = client;
        this.threads = threads;
        this.collection = client.getDatabase(ns.db()).getCollection(ns.coll(), RawBsonDocument.class)
                .withReadConcern(ReadConcern.MAJORITY).withCodecRegistry(ExactRawDocuments.REGISTRY);
        this.ns = ns;
        this.filter = filter;
        this.batchSize = batchSize;
        this.markerPartitions = markerPartitions;
        this.chunk = chunk;
        this.streamStart = from.startAt();
        this.lastId = from.lastId();
        this.progress = progress;
        this.lastLogMs = System.currentTimeMillis();
        log.info("Backfill of {}{} {} (stream start {}, estimated {} documents)", LogText.escape(ns), describeChunk(),
                LogText.escape(lastId == null ? "starts" : "resumes after _id " + lastId), streamStart, progress.estimatedTotal());
    }

    @Override
    public List<Captured> next() throws InterruptedException {
        if (finished) {
            return List.of();
        }
        if (cursor == null) {
            BsonDocument range = chunk == null ? IdOrder.after(lastId)
                    : IdOrder.and(lastId == null ? IdOrder.atOrAfter(chunk.from()) : IdOrder.after(lastId), IdOrder.before(chunk.to()));
            BsonDocument query = IdOrder.and(filter, range);
            cursor = new ReadAhead<>(threads, batchSize, () -> openCausally(query));
        }
        ReadAhead.Batch<RawBsonDocument> batch = cursor.next();
        List<Captured> out = new ArrayList<>(batch.items().size() + 2);
        long now = System.currentTimeMillis();
        for (RawBsonDocument doc : batch.items()) {
            BsonValue id = DocumentIds.idOf(doc);
            out.add(new Captured.Change(ChangeEvent.read(ns, id, doc, streamStart, now),
                    SourceOffset.backfill(streamStart, id)));
            lastId = id;
        }
        int copied = out.size();
        progress.copied(copied);
        if (batch.last() && chunk != null) {
            finished = true;
            // the chunk's last offset: its owner ends the copy once every chunk's is committed (records acknowledged)
            out.add(new Captured.Heartbeat(SourceOffset.chunkDone(streamStart, lastId)));
            log.info("Backfill of {}{} done: {}", LogText.escape(ns), describeChunk(), progress.describe());
        } else if (batch.last()) {
            finished = true;
            // after the last copy on every partition, before the switch to streaming is committed: a restart
            // in between copies nothing more and sends the marker again, which the sink applies idempotently
            out.add(new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, ns, streamStart, markerPartitions),
                    SourceOffset.backfill(streamStart, lastId)));
            // commits the switch to streaming even when the collection was empty
            out.add(new Captured.Heartbeat(SourceOffset.streamAfterCopy(streamStart)));
            log.info("Backfill of {} done: {}", LogText.escape(ns), progress.describe());
        } else if (now - lastLogMs >= PROGRESS_EVERY_MS) {
            lastLogMs = now;
            log.info("Backfill of {}{}: {}", LogText.escape(ns), describeChunk(), progress.describe());
        }
        return out;
    }

    private String describeChunk() {
        return chunk == null ? "" : " chunk " + chunk.index() + " [" + (chunk.from() == null ? "start" : chunk.from()) + ", "
                + (chunk.to() == null ? "end" : chunk.to()) + ")";
    }

    /** The copy's cursor in a causally consistent session that reads after the stream start; both closed together. */
    private ReadAhead.Source<RawBsonDocument> openCausally(BsonDocument query) {
        ClientSession session = client.startSession(ClientSessionOptions.builder().causallyConsistent(true).build());
        try {
            session.advanceOperationTime(CopyStart.readsAfter(streamStart));
            MongoCursor<RawBsonDocument> found = collection.find(session, query).sort(BY_ID).batchSize(batchSize).cursor();
            ReadAhead.Source<RawBsonDocument> source = ReadAhead.of(found);
            return new ReadAhead.Source<>() {
                @Override
                public boolean hasNext() {
                    return source.hasNext();
                }

                @Override
                public RawBsonDocument next() {
                    return source.next();
                }

                @Override
                public void close() {
                    try {
                        source.close();
                    } finally {
                        session.close();
                    }
                }
            };
        } catch (RuntimeException e) {
            session.close();
            throw e;
        }
    }

    @Override
    public boolean finished() {
        return finished;
    }

    @Override
    public void close() {
        if (cursor != null) {
            cursor.close();
        }
    }
}
