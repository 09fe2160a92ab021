package dev.tideline.source;

import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.changestream.FullDocument;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tails one collection's change stream from a resume token or an operation time.
 *
 * <p>Never relies on {@code ns} in events (the reader knows its collection), accepts {@code update}
 * events that carry a whole document as well as {@code replace} events, and treats a
 * {@code fullDocument} without {@code _id} as a missing one: the document is gone and the delete
 * that follows removes it. When the server answers an empty getMore at once instead of waiting
 * {@code maxAwaitTimeMS}, the reader backs off by itself so an idle collection costs next to nothing.
 */
final class StreamReader implements CollectionReader {
    private static final Logger log = LoggerFactory.getLogger(StreamReader.class);
    private static final long MIN_IDLE_SLEEP_MS = 10;

    private final Namespace ns;
    private final MongoCollection<RawBsonDocument> collection;
    private final BsonDocument matchStage;
    private final int batchSize;
    private final long maxAwaitMs;
    private final long heartbeatIntervalMs;
    private MongoChangeStreamCursor<RawBsonDocument> cursor;
    private BsonDocument lastToken;
    private long lastEmitMs;
    private long idleSleepMs = MIN_IDLE_SLEEP_MS;

    /** @param from where to start: a STREAM offset (token or operation time) */
    StreamReader(MongoCollection<RawBsonDocument> collection, Namespace ns, BsonDocument filter, SourceOffset from,
                 int batchSize, long maxAwaitMs, long heartbeatIntervalMs) {
        this.ns = ns;
        this.collection = collection;
        this.matchStage = FilterRewriter.matchStage(filter);
        this.batchSize = batchSize;
        this.maxAwaitMs = maxAwaitMs;
        this.heartbeatIntervalMs = heartbeatIntervalMs;
        this.lastToken = from.token();
        this.lastEmitMs = System.currentTimeMillis();
        this.cursor = open(from.token(), from.startAt(), false);
    }

    private MongoChangeStreamCursor<RawBsonDocument> open(BsonDocument token, BsonTimestamp startAt, boolean afterInvalidate) {
        List<BsonDocument> pipeline = matchStage == null ? List.of() : List.of(matchStage);
        ChangeStreamIterable<RawBsonDocument> it = collection.watch(pipeline, RawBsonDocument.class)
                .fullDocument(FullDocument.UPDATE_LOOKUP)
                .batchSize(batchSize)
                .maxAwaitTime(maxAwaitMs, TimeUnit.MILLISECONDS);
        if (token != null) {
            // resumeAfter refuses an invalidate event's token; startAfter is made for it
            it = afterInvalidate ? it.startAfter(token) : it.resumeAfter(token);
        } else if (startAt != null) {
            it = it.startAtOperationTime(startAt);
        }
        log.debug("Change stream on {} opened ({})", ns, token != null ? "after token" : "at " + startAt);
        // Events as raw bytes (RawChangeEvent reads them); the driver still tracks the resume token.
        MongoCursor<RawBsonDocument> raw = it.withDocumentClass(RawBsonDocument.class).cursor();
        if (raw instanceof MongoChangeStreamCursor<RawBsonDocument> changeStream) {
            return changeStream;
        }
        raw.close();
        throw new IllegalStateException("the MongoDB driver on the plugin's class path returned a " + raw.getClass().getName()
                + " for a change stream instead of a MongoChangeStreamCursor: install the driver version the plugin ships with");
    }

    @Override
    public List<Captured> next() throws InterruptedException {
        List<Captured> out = new ArrayList<>();
        long started = System.currentTimeMillis();
        while (out.size() < batchSize) {
            if (!out.isEmpty() && cursor.available() == 0) {
                // Hand over what the last round trip returned instead of asking for more: under a steady
                // trickle a server-side awaiting getMore answers with a few events every few ms and never
                // comes back empty, so filling a whole batch would hold the first event for seconds.
                break;
            }
            RawBsonDocument event = cursor.tryNext();
            if (event == null) {
                break;
            }
            Captured item = toCaptured(RawChangeEvent.parse(event));
            if (item != null) {
                out.add(item);
            }
            if (item instanceof Captured.Control c && "invalidate".equals(c.type())) {
                // the stream is closed after an invalidate: reopen past it to see what comes next
                cursor.close();
                cursor = open(lastToken, null, true);
                break;
            }
        }
        long now = System.currentTimeMillis();
        if (!out.isEmpty()) {
            lastEmitMs = now;
            idleSleepMs = MIN_IDLE_SLEEP_MS;
            return out;
        }
        Captured heartbeat = heartbeat(now);
        if (heartbeat != null) {
            return List.of(heartbeat);
        }
        if (now - started < maxAwaitMs / 2) {
            // the server did not wait for us: back off (doubling, up to maxAwait) instead of spinning
            Thread.sleep(idleSleepMs);
            idleSleepMs = Math.min(maxAwaitMs, idleSleepMs * 2);
        }
        return out;
    }

    /** The post-batch resume token of a quiet stream, at most once per heartbeat interval. */
    private Captured heartbeat(long now) {
        if (heartbeatIntervalMs <= 0 || now - lastEmitMs < heartbeatIntervalMs) {
            return null;
        }
        BsonDocument token = cursor.getResumeToken();
        if (token == null || token.equals(lastToken)) {
            return null;
        }
        lastToken = token;
        lastEmitMs = now;
        return new Captured.Heartbeat(SourceOffset.streamAfter(token));
    }

    private Captured toCaptured(RawChangeEvent event) {
        BsonDocument token = event.token();
        lastToken = token;
        SourceOffset offset = SourceOffset.streamAfter(token);
        String type = event.type();
        BsonTimestamp clusterTime = event.clusterTime();
        long wall = event.wallTime() != null ? event.wallTime()
                : clusterTime != null ? clusterTime.getTime() * 1000L : System.currentTimeMillis();
        switch (type == null ? "" : type) {
            case "insert":
            case "update":
            case "replace": {
                RawBsonDocument full = event.fullDocument();
                BsonDocument doc = full != null && full.containsKey("_id") ? full : null;
                var id = event.documentId() != null ? event.documentId() : doc != null ? doc.get("_id") : null;
                Op op = type.equals("insert") ? Op.INSERT : type.equals("update") ? Op.UPDATE : Op.REPLACE;
                return id == null ? unidentified(type, offset, clusterTime)
                        : new Captured.Change(new ChangeEvent(op, ns, id, doc, clusterTime, wall, null)
                                .withDocumentKey(event.documentKey()), offset); // shard key fields travel with the change
            }
            case "delete": {
                var id = event.documentId();
                return id == null ? unidentified(type, offset, clusterTime)
                        : new Captured.Change(new ChangeEvent(Op.DELETE, ns, id, null, clusterTime, wall, null)
                                .withDocumentKey(event.documentKey()), offset);
            }
            case "drop":
            case "rename":
            case "dropDatabase":
            case "invalidate": {
                String detail = type + " of " + ns
                        + (event.destination() != null ? " to " + event.destination() : "")
                        + (clusterTime != null ? " at " + clusterTime : "") + ": reported, not applied";
                log.warn("Change stream on {}: {}", ns, detail);
                return new Captured.Control(type, detail, offset);
            }
            default:
                // createIndexes, modify, shardCollection... (showExpandedEvents is off): move the position only
                return new Captured.Heartbeat(offset);
        }
    }

    /** A change whose document cannot be identified: reported loudly, never dropped silently. */
    private Captured unidentified(String type, SourceOffset offset, BsonTimestamp clusterTime) {
        String detail = type + " event on " + ns + " at " + clusterTime + " carries no _id (no documentKey._id, no document): "
                + "it cannot be applied downstream; if a later event for the same document follows, it repairs this one";
        log.warn("Change stream on {}: {}", ns, detail);
        return new Captured.Control("unidentified_change", detail, offset);
    }

    @Override
    public void close() {
        cursor.close();
    }
}
