package dev.tideline.peer.sink;

import com.mongodb.MongoException;
import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import dev.tideline.event.Namespace;
import dev.tideline.log.LogText;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the changes of this cluster's destination collections from their change streams, so the
 * {@link LocalChangeBarrier} knows of a local delete or write as soon as the sink's read could miss it or
 * reflect it: a {@link #catchUp} AFTER the read of the documents returns every change committed before that
 * read. One stream per destination collection, opened the first time the sink writes to it, at the earliest of this
 * cluster's own records then queued for it: a task (re)started reads its own records again from its committed
 * position, and the barrier must know the local changes those records come before, or an own record of an update
 * read late (carrying a later write's content) stamps that content with its earlier version, and the older states
 * the records replayed after it describe are written back over it. The events are projected to their key, type and
 * time: the documents themselves are not needed.
 */
final class LocalChangeWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LocalChangeWatcher.class);
    /** a getMore that finds nothing new answers after this long: the watcher wants what is there now, not to wait */
    private static final long AWAIT_MS = 1;
    private static final BsonString DELETE = new BsonString("delete");
    /** the events that change one document; the others (drop, rename, invalidate...) name no document */
    private static final List<String> DOCUMENT_CHANGES = List.of("insert", "update", "replace", "delete");

    private final MongoClient client;
    private final Map<Namespace, MongoChangeStreamCursor<BsonDocument>> streams = new HashMap<>();
    /** where a stream that failed resumes */
    private final Map<Namespace, BsonDocument> resumeTokens = new HashMap<>();

    LocalChangeWatcher(MongoClient client) {
        this.client = client;
    }

    /**
     * Feeds every delete and write of {@code ns} committed so far into the barrier.
     *
     * @throws MongoException when the stream fails (it is reopened from its last position on the next call)
     */
    void catchUp(Namespace ns, LocalChangeBarrier barrier, Supplier<BsonTimestamp> earliestOwn) {
        MongoChangeStreamCursor<BsonDocument> cursor = streams.get(ns);
        if (cursor == null) {
            BsonDocument resumeToken = resumeTokens.get(ns);
            // asked only when a stream opens for the first time: it walks the queue
            cursor = open(ns, resumeToken, resumeToken == null ? earliestOwn.get() : null);
            streams.put(ns, cursor);
        }
        try {
            for (BsonDocument event = cursor.tryNext(); event != null; event = cursor.tryNext()) {
                BsonValue key = event.get("documentKey");
                BsonValue time = event.get("clusterTime");
                if (key != null && key.isDocument() && key.asDocument().containsKey("_id") && time != null && time.isTimestamp()) {
                    PeerChange.DocKey doc = new PeerChange.DocKey(ns, key.asDocument().get("_id"));
                    if (DELETE.equals(event.get("operationType"))) {
                        barrier.deletedHere(doc, time.asTimestamp());
                    } else {
                        barrier.writtenHere(doc, time.asTimestamp());
                    }
                }
            }
        } catch (MongoException e) {
            BsonDocument token = cursor.getResumeToken();
            if (token != null) {
                resumeTokens.put(ns, token);
            }
            streams.remove(ns).close();
            throw e;
        }
    }

    /** @param startAt where a stream opened for the first time starts (null: now); ignored when resuming */
    private MongoChangeStreamCursor<BsonDocument> open(Namespace ns, BsonDocument resumeToken, BsonTimestamp startAt) {
        try {
            return openAt(ns, resumeToken, startAt);
        } catch (MongoException e) {
            if (resumeToken == null && startAt == null || MongoErrors.classify(e) != ErrorClass.HISTORY_LOST) {
                throw e;
            }
            // the changes between are not known: peer changes of documents deleted then are not held for them
            log.warn("The change stream of {} cannot {} (code {}): changes since then are not seen by the barrier; watching "
                    + "from now", LogText.escape(ns), resumeToken != null ? "resume where it stopped" : "start at " + startAt
                    + ", the earliest own record queued", e.getCode());
            resumeTokens.remove(ns);
            return openAt(ns, null, null);
        }
    }

    private MongoChangeStreamCursor<BsonDocument> openAt(Namespace ns, BsonDocument resumeToken, BsonTimestamp startAt) {
        ChangeStreamIterable<BsonDocument> it = client.getDatabase(ns.db()).getCollection(ns.coll(), BsonDocument.class)
                .watch(List.of(Aggregates.match(Filters.in("operationType", DOCUMENT_CHANGES)),
                        Aggregates.project(Projections.include("operationType", "documentKey", "clusterTime"))), BsonDocument.class)
                .maxAwaitTime(AWAIT_MS, TimeUnit.MILLISECONDS);
        if (resumeToken != null) {
            it = it.resumeAfter(resumeToken);
        } else if (startAt != null) {
            it = it.startAtOperationTime(startAt);
        }
        MongoCursor<BsonDocument> raw = it.withDocumentClass(BsonDocument.class).cursor();
        if (raw instanceof MongoChangeStreamCursor<BsonDocument> stream) {
            log.debug("Watching the changes of {}", LogText.escape(ns));
            return stream;
        }
        raw.close();
        throw new IllegalStateException("the MongoDB driver returned a " + raw.getClass().getName()
                + " for a change stream instead of a MongoChangeStreamCursor: install the driver version the plugin ships with");
    }

    @Override
    public void close() {
        streams.values().forEach(MongoCursor::close);
        streams.clear();
        resumeTokens.clear();
    }
}
