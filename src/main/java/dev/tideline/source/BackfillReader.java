package dev.tideline.source;

import com.mongodb.client.MongoCollection;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
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
 * <p>Uses {@code find} with a limit, not an aggregation: a batch stays bounded on every server.
 */
final class BackfillReader implements CollectionReader {
    private static final Logger log = LoggerFactory.getLogger(BackfillReader.class);
    private static final BsonDocument BY_ID = new BsonDocument("_id", new BsonInt32(1));
    private static final long PROGRESS_EVERY_MS = 10_000;

    private final MongoCollection<RawBsonDocument> collection;
    private final Namespace ns;
    private final BsonDocument filter;
    private final int batchSize;
    private final BsonTimestamp streamStart;
    private final BackfillProgress progress;
    private BsonValue lastId;
    private boolean finished;
    private long lastLogMs;

    BackfillReader(MongoCollection<RawBsonDocument> collection, Namespace ns, BsonDocument filter, int batchSize,
                   BsonTimestamp streamStart, BsonValue lastId, BackfillProgress progress) {
        this.collection = collection;
        this.ns = ns;
        this.filter = filter;
        this.batchSize = batchSize;
        this.streamStart = streamStart;
        this.lastId = lastId;
        this.progress = progress;
        this.lastLogMs = System.currentTimeMillis();
        log.info("Backfill of {} {} (stream start {}, estimated {} documents)", ns,
                lastId == null ? "starts" : "resumes after _id " + lastId, streamStart, progress.estimatedTotal());
    }

    @Override
    public List<Captured> next() {
        if (finished) {
            return List.of();
        }
        BsonDocument query = IdOrder.and(filter, IdOrder.after(lastId));
        List<Captured> out = new ArrayList<>(batchSize + 1);
        long now = System.currentTimeMillis();
        for (RawBsonDocument doc : collection.find(query).sort(BY_ID).limit(batchSize).batchSize(batchSize)) {
            BsonValue id = doc.get("_id");
            out.add(new Captured.Change(new ChangeEvent(Op.READ, ns, id, doc, streamStart, now, null),
                    SourceOffset.backfill(streamStart, id)));
            lastId = id;
        }
        progress.copied(out.size());
        if (out.size() < batchSize) {
            finished = true;
            // commits the switch to streaming even when the collection was empty
            out.add(new Captured.Heartbeat(SourceOffset.streamFrom(streamStart)));
            log.info("Backfill of {} done: {}", ns, progress.describe());
        } else if (now - lastLogMs >= PROGRESS_EVERY_MS) {
            lastLogMs = now;
            log.info("Backfill of {}: {}", ns, progress.describe());
        }
        return out;
    }

    @Override
    public boolean finished() {
        return finished;
    }

    @Override
    public void close() {
        // find cursors are closed by their iteration
    }
}
