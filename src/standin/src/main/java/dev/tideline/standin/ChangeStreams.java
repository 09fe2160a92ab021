package dev.tideline.standin;

import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.DatabaseResolver;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.CursorNotFoundException;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.List;
import java.util.function.Predicate;

/**
 * The stand-in's change streams: {@code aggregate} with {@code $changeStream} and the {@code getMore}s of
 * its cursors, answered as a replica-set member answers them
 * (https://www.mongodb.com/docs/manual/reference/operator/aggregation/changeStream/,
 * https://github.com/mongodb/specifications/blob/master/source/change-streams/change-streams.md):
 * collection, database and deployment streams, the three ways to start, a {@code postBatchResumeToken}
 * in every reply, and the cursor closed after an {@code invalidate}. A {@code getMore} answers at once,
 * with an empty batch when nothing is new; waiting for data is the server's connection handler's
 * business ({@link AwaitingGetMore}).
 */
public final class ChangeStreams {
    /** MongoDB caps a reply's documents at 16 MiB (the reply itself may be a little larger). */
    private static final long MAX_BATCH_BYTES = 16L * 1024 * 1024;

    private final IndexedOplog oplog;
    private final CursorRegistry cursors;
    private final CollectionCatalog catalog;
    private final DatabaseResolver databases;
    private volatile long maxEventBytes = 16L * 1024 * 1024;
    private volatile boolean splitStageSupported = true;

    public ChangeStreams(IndexedOplog oplog, CursorRegistry cursors, CollectionCatalog catalog, DatabaseResolver databases) {
        this.oplog = oplog;
        this.cursors = cursors;
        this.catalog = catalog;
        this.databases = databases;
    }

    /** The largest change event returned whole (MongoDB: 16 MiB); a test lowers it to make large events cheaply. */
    public void maxEventBytes(long bytes) {
        if (bytes < 1024) {
            throw new IllegalArgumentException("an event limit under 1 KiB leaves no room for an event's own fields");
        }
        this.maxEventBytes = bytes;
    }

    /** Whether the server knows {@code $changeStreamSplitLargeEvent} (MongoDB 7.0 and 6.0.9 on); without it, 40324. */
    public void splitStageSupported(boolean supported) {
        this.splitStageSupported = supported;
    }

    /** The client's stages; a leading {@code $match} also compiled ({@link EventMatch}) when its grammar allows. */
    private EventPipeline pipeline(ChangeStreamSpec spec) {
        List<Document> given = spec.stages();
        if (given.isEmpty()) {
            return new EventPipeline(null, spec.split(), maxEventBytes);
        }
        Aggregation all = Aggregation.fromPipeline(given, databases, null, null, oplog);
        Object first = given.get(0).get("$match");
        EventMatch match = given.get(0).size() == 1 && first instanceof Document filter ? EventMatch.compile(filter) : null;
        if (match == null) {
            return new EventPipeline(all, spec.split(), maxEventBytes);
        }
        List<Document> rest = given.subList(1, given.size());
        Aggregation afterMatch = rest.isEmpty() ? null : Aggregation.fromPipeline(rest, databases, null, null, oplog);
        return new EventPipeline(all, match, afterMatch, spec.split(), maxEventBytes);
    }

    /** Answers an {@code aggregate} whose pipeline starts with {@code $changeStream}. */
    public Document open(String database, Document aggregate) {
        ChangeStreamSpec spec = ChangeStreamSpec.parse(database, aggregate, splitStageSupported);
        if (spec.scope() == ChangeStreamSpec.Scope.COLLECTION && catalog.kind(spec.namespace()) != CollectionCatalog.Kind.COLLECTION) {
            // a view, and a time-series collection (which MongoDB implements as a view on its buckets)
            throw ServerErrors.commandNotSupportedOnView(spec.namespace());
        }
        if (spec.startToken() != null && spec.startToken().isInvalidate() && !spec.startAfter()) {
            throw ServerErrors.invalidResumeToken("Attempting to resume a change stream using 'resumeAfter' is not allowed from "
                    + "an invalidate notification.");
        }
        ChangeStreamCursor cursor = new ChangeStreamCursor(cursors.generateCursorId(), spec, oplog, pipeline(spec), start(spec));
        ChangeStreamCursor.Batch batch;
        if (spec.firstBatch() == 0) {
            cursor.checkHistory(); // an empty first batch still finds out whether the resume point is there
            batch = new ChangeStreamCursor.Batch(List.of(), cursor.position(), false);
        } else {
            batch = cursor.next(spec.firstBatch(), MAX_BATCH_BYTES);
        }
        if (!batch.closed()) {
            cursors.add(cursor);
        }
        return reply(spec, "firstBatch", batch, batch.closed() ? 0 : cursor.getId());
    }

    private ResumeToken start(ChangeStreamSpec spec) {
        if (spec.startToken() != null) {
            return spec.startToken();
        }
        if (spec.startAtTime() != null) {
            return ResumeToken.highWaterMark(spec.startAtTime());
        }
        // no start given: the events after the latest write (MongoDB starts one tick after its last applied entry)
        return ResumeToken.after(oplog.highWaterMark());
    }

    /**
     * The writes that may give {@code cursorId}'s stream an event: its namespaces, and every command (drop,
     * rename...). Anything for a cursor that is gone, so that its waiting getMore finds out.
     */
    public Predicate<String> wakesOn(long cursorId) {
        try {
            if (cursors.getCursor(cursorId) instanceof ChangeStreamCursor cursor) {
                ChangeStreamSpec spec = cursor.spec();
                return ns -> ns.endsWith(".$cmd") || spec.covers(ns);
            }
        } catch (CursorNotFoundException e) {
            // answered below
        }
        return ns -> true;
    }

    /** Whether {@code cursorId} is an open change stream's. */
    public boolean isChangeStream(long cursorId) {
        try {
            return cursors.getCursor(cursorId) instanceof ChangeStreamCursor;
        } catch (CursorNotFoundException e) {
            return false;
        }
    }

    /**
     * Answers a {@code getMore} on a change stream at once: new events, or an empty batch whose
     * post-batch resume token has moved to the present.
     */
    public Document getMore(Document query) {
        long cursorId = ((Number) query.get("getMore")).longValue();
        Cursor found = cursors.getCursor(cursorId);
        if (!(found instanceof ChangeStreamCursor cursor)) {
            throw new CursorNotFoundException(cursorId);
        }
        int batchSize = query.get("batchSize") instanceof Number n ? n.intValue() : 0;
        ChangeStreamCursor.Batch batch;
        try {
            batch = cursor.next(batchSize, MAX_BATCH_BYTES);
        } catch (MongoServerError e) {
            cursors.remove(cursor); // an error during getMore kills the cursor, as on MongoDB
            throw e;
        }
        if (batch.closed()) {
            cursors.remove(cursor);
        }
        return reply(cursor.spec(), "nextBatch", batch, batch.closed() ? 0 : cursorId);
    }

    /** Whether a getMore reply is an empty batch on an open cursor: one worth waiting on. */
    public static boolean isEmptyOpenBatch(Document reply) {
        return reply.get("cursor") instanceof Document c && c.get("nextBatch") instanceof List<?> batch && batch.isEmpty()
                && c.get("id") instanceof Number id && id.longValue() != 0;
    }

    private Document reply(ChangeStreamSpec spec, String batchKey, ChangeStreamCursor.Batch batch, long cursorId) {
        Document cursor = new Document("id", cursorId)
                .append("ns", spec.cursorNamespace())
                .append(batchKey, batch.documents())
                .append("postBatchResumeToken", batch.postBatchResumeToken().toDocument());
        return new Document("cursor", cursor).append("ok", 1.0);
    }
}
