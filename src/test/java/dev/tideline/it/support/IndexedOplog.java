package dev.tideline.it.support;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.AbstractCursor;
import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import de.bwaldvogel.mongo.oplog.OplogCursor;
import de.bwaldvogel.mongo.oplog.OplogPosition;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;

/**
 * The stand-in's oplog kept in memory, ordered by time, in place of mongo-java-server's
 * collection-backed one. Two costs of that one made change-stream tests slow in a way MongoDB is not
 * (FAKE-MONGO.md): every {@code getMore} scanned and sorted the WHOLE oplog to find what follows the
 * cursor's position, and every {@code updateLookup} scanned the whole collection for one {@code _id}.
 * Here a read starts at its position (a sorted map's tail, as MongoDB's oplog is read from a
 * timestamp) and a lookup goes through the {@code _id} index.
 *
 * <p>Events move towards MongoDB's documented shape
 * (https://www.mongodb.com/docs/manual/reference/change-events/) where the stand-in differed:
 * {@code documentKey} of an update is {@code {_id}} (the stand-in put the update specification there),
 * an {@code updateLookup} of a document deleted since is {@code null} (the stand-in returned the update's
 * fields), events carry {@code ns} and {@code wallTime}, a replacement is a {@code replace} event with
 * the new document, and an update carries an {@code updateDescription} and, without
 * {@code updateLookup}, no {@code fullDocument} (see {@link #handleUpdate}).
 */
final class IndexedOplog implements Oplog {
    private static final String INSERT = "i";
    private static final String UPDATE = "u";
    /** A replacement: MongoDB logs it as an update of the whole document and reports it as {@code replace}. */
    private static final String REPLACE = "r";
    private static final String DELETE = "d";
    private static final String COMMAND = "c";

    /**
     * One write, as the oplog keeps it. {@code o} is the document (insert, replacement), the update's
     * description (update) or the command.
     */
    private record Entry(BsonTimestamp ts, Instant wall, String op, String ns, Document o, Object id) {
    }

    /** The document as each write left it, per namespace and {@code _id}: what the next update is diffed against. */
    private final Map<String, Map<Object, Document>> images = new ConcurrentHashMap<>();

    private final MongoBackend backend;
    private final CursorRegistry cursors;
    private final Runnable onWrite;
    private final Clock clock;
    private final ConcurrentSkipListMap<Long, Entry> entries = new ConcurrentSkipListMap<>();
    private int increment;
    private long last;

    IndexedOplog(MongoBackend backend, CursorRegistry cursors, Runnable onWrite) {
        this.backend = backend;
        this.cursors = cursors;
        this.onWrite = onWrite;
        this.clock = backend.getClock();
    }

    @Override
    public void handleInsert(String namespace, List<Document> documents) {
        // the stand-in hands over every document of the command, also those it refused (a duplicate key):
        // MongoDB's oplog holds only the writes that happened
        // (https://www.mongodb.com/docs/manual/core/replica-set-oplog/), so only the stored ones are logged
        for (Document d : documents) {
            if (current(namespace, d.get("_id")) != d) {
                continue;
            }
            Document copy = d.cloneDeeply();
            imagesOf(namespace).put(d.get("_id"), copy);
            append(INSERT, namespace, copy, d.get("_id"));
        }
        onWrite.run();
    }

    /**
     * MongoDB reports a replacement ({@code replaceOne}: an update without operators) as a
     * {@code replace} event carrying the new document, and any other update as an {@code update}
     * event whose {@code updateDescription} holds the changed fields with their new values and the
     * removed ones (https://www.mongodb.com/docs/manual/reference/change-events/update/,
     * .../change-events/replace/). Here the description compares the document before and after the
     * update at top level (an embedded change is reported as its whole top-level field: coarser than
     * MongoDB's dotted paths, and what it means is the same); when the document before is unknown
     * (written before this oplog existed) the fields the update's operators name are reported.
     */
    @Override
    public void handleUpdate(String namespace, Document selector, Document query, List<Object> modifiedIds) {
        boolean replacement = query.keySet().stream().noneMatch(k -> k.startsWith("$"));
        for (Object id : modifiedIds) {
            Document after = current(namespace, id);
            if (after == null) {
                continue; // deleted before this call: the delete is logged on its own
            }
            after = after.cloneDeeply();
            Document before = imagesOf(namespace).put(id, after);
            if (replacement) {
                append(REPLACE, namespace, after, id);
            } else {
                append(UPDATE, namespace, before != null ? diff(before, after) : describe(query, after), id);
            }
        }
        onWrite.run();
    }

    @Override
    public void handleDelete(String namespace, Document query, List<Object> deletedIds) {
        deletedIds.forEach(id -> {
            imagesOf(namespace).remove(id);
            append(DELETE, namespace, null, id);
        });
        onWrite.run();
    }

    @Override
    public void handleDropCollection(String namespace) {
        images.remove(namespace);
        append(COMMAND, databaseOf(namespace) + ".$cmd", new Document("drop", collectionOf(namespace)), null);
        onWrite.run();
    }

    private Map<Object, Document> imagesOf(String namespace) {
        return images.computeIfAbsent(namespace, ns -> new ConcurrentHashMap<>());
    }

    /** {@code {updatedFields, removedFields, truncatedArrays}} of the top-level fields that differ. */
    private static Document diff(Document before, Document after) {
        Document updated = new Document();
        for (String key : after.keySet()) {
            if (!before.containsKey(key) || !Objects.equals(before.get(key), after.get(key))) {
                updated.append(key, after.get(key));
            }
        }
        List<String> removed = before.keySet().stream().filter(k -> !after.containsKey(k)).toList();
        return description(updated, removed);
    }

    /** The top-level fields the update's operators name: set to their value after the update, or removed. */
    private static Document describe(Document update, Document after) {
        Document updated = new Document();
        List<String> removed = new ArrayList<>();
        for (Object fields : update.values()) {
            if (fields instanceof Document d) {
                for (String path : d.keySet()) {
                    String top = path.split("\\.", 2)[0];
                    if (after.containsKey(top)) {
                        updated.append(top, after.get(top));
                    } else if (!removed.contains(top)) {
                        removed.add(top);
                    }
                }
            }
        }
        return description(updated, removed);
    }

    private static Document description(Document updated, List<String> removed) {
        return new Document("updatedFields", updated).append("removedFields", removed).append("truncatedArrays", List.of());
    }

    /**
     * Appends under a lock, so timestamps are handed out in the order entries become visible: a
     * reader never sees a later write before an earlier one.
     */
    private synchronized void append(String op, String ns, Document o, Object id) {
        Instant now = clock.instant();
        BsonTimestamp ts = new BsonTimestamp(now, ++increment);
        if (ts.getValue() <= last) {
            ts = new BsonTimestamp(last + 1);
        }
        last = ts.getValue();
        entries.put(ts.getValue(), new Entry(ts, now, op, ns, o, id));
    }

    /** The cluster time of the latest write (or now, when nothing was written yet). */
    BsonTimestamp operationTime() {
        return new BsonTimestamp(lastTimestamp());
    }

    private synchronized long lastTimestamp() {
        return Math.max(last, new BsonTimestamp(clock.instant(), increment).getValue());
    }

    @Override
    public Cursor createCursor(Document changeStream, String namespace, Aggregation aggregation) {
        Document startAfter = (Document) changeStream.get("startAfter");
        Document resumeAfter = (Document) changeStream.get("resumeAfter");
        BsonTimestamp startAt = (BsonTimestamp) changeStream.get("startAtOperationTime");
        OplogPosition start;
        if (startAfter != null) {
            start = OplogPosition.fromDocument(startAfter);
        } else if (resumeAfter != null) {
            start = OplogPosition.fromDocument(resumeAfter);
            if (droppedAtOrBefore(valueOf(start), namespace)) {
                // MongoDB: resuming after the collection's drop yields the invalidate event
                return new InvalidateCursor(start);
            }
        } else if (startAt != null) {
            start = new OplogPosition(startAt).inclusive();
        } else {
            start = new OplogPosition(new BsonTimestamp(lastTimestamp()));
        }
        boolean lookup = "updateLookup".equals(changeStream.get("fullDocument"));
        OplogCursor cursor = new OplogCursor(cursors.generateCursorId(),
                position -> aggregation.runStagesAsStream(eventsAfter(position, namespace, lookup)), start);
        cursors.add(cursor);
        return cursor;
    }

    private Stream<Document> eventsAfter(OplogPosition position, String namespace, boolean lookup) {
        return entries.tailMap(valueOf(position), true).values().stream()
                .filter(e -> new OplogPosition(e.ts()).isAfter(position))
                .filter(e -> e.ns().equals(namespace) || isCommandOf(e, namespace))
                .map(e -> toEvent(e, lookup));
    }

    private boolean droppedAtOrBefore(long position, String namespace) {
        String db = databaseOf(namespace);
        String coll = collectionOf(namespace);
        for (Entry e : entries.headMap(position, true).values()) {
            if (e.op().equals(COMMAND) && e.ns().equals(db + ".$cmd") && coll.equals(e.o().get("drop"))) {
                return true;
            }
        }
        return false;
    }

    private static boolean isCommandOf(Entry e, String namespace) {
        return e.op().equals(COMMAND) && e.ns().equals(databaseOf(namespace) + ".$cmd");
    }

    private Document toEvent(Entry e, boolean lookup) {
        Document event = new Document("_id", new Document("_data", new OplogPosition(e.ts()).toHexString()));
        if (e.op().equals(COMMAND)) {
            return event.append("operationType", e.o().keySet().iterator().next())
                    .append("clusterTime", e.ts())
                    .append("wallTime", e.wall())
                    .append("ns", new Document("db", databaseOf(e.ns())).append("coll", e.o().get("drop")));
        }
        String type = switch (e.op()) {
            case INSERT -> "insert";
            case UPDATE -> "update";
            case REPLACE -> "replace";
            default -> "delete";
        };
        event.append("operationType", type);
        switch (e.op()) {
            case INSERT, REPLACE -> event.append("fullDocument", e.o());
            case UPDATE -> {
                if (lookup) { // without updateLookup MongoDB leaves fullDocument out of update events
                    event.append("fullDocument", current(e.ns(), e.id()));
                }
                event.append("updateDescription", e.o());
            }
            default -> {
            }
        }
        return event.append("ns", new Document("db", databaseOf(e.ns())).append("coll", collectionOf(e.ns())))
                .append("documentKey", new Document("_id", e.id()))
                .append("clusterTime", e.ts())
                .append("wallTime", e.wall());
    }

    /** The document as it is now, through the {@code _id} index; null once it is gone, as MongoDB answers. */
    private Document current(String ns, Object id) {
        MongoDatabase database = backend.resolveDatabase(databaseOf(ns));
        MongoCollection<?> collection = database.resolveCollection(collectionOf(ns), false);
        if (collection == null) {
            return null;
        }
        Iterator<Document> found = collection.handleQuery(new Document("_id", id), 0, 1).iterator();
        return found.hasNext() ? found.next() : null;
    }

    private static long valueOf(OplogPosition position) {
        return Long.parseUnsignedLong(position.toHexString(), 16);
    }

    private static String databaseOf(String namespace) {
        int dot = namespace.indexOf('.');
        return dot < 0 ? namespace : namespace.substring(0, dot);
    }

    private static String collectionOf(String namespace) {
        int dot = namespace.indexOf('.');
        return dot < 0 ? "" : namespace.substring(dot + 1);
    }

    /** What a resume after the collection's drop returns: one invalidate event. */
    private static final class InvalidateCursor extends AbstractCursor {
        private final OplogPosition position;

        InvalidateCursor(OplogPosition position) {
            super(0);
            this.position = position;
        }

        @Override
        public boolean isEmpty() {
            return false;
        }

        @Override
        public List<Document> takeDocuments(int numberToReturn) {
            return List.of(new Document("_id", new Document("_data", position.toHexString()))
                    .append("operationType", "invalidate"));
        }
    }
}
