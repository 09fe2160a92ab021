package dev.tideline.standin;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import dev.tideline.standin.OplogEntry.Op;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The stand-in's oplog, kept in memory in timestamp order in place of mongo-java-server's
 * collection-backed one, whose every {@code getMore} scanned and sorted the whole oplog. A read starts
 * at its position (a sorted map's tail, as MongoDB reads its oplog from a timestamp), and a lookup
 * goes through the {@code _id} index.
 *
 * <p>What it logs follows MongoDB's oplog (https://www.mongodb.com/docs/manual/core/replica-set-oplog/):
 * only the writes that happened, one entry per document, an update's description diffed from the
 * document before (see {@link #handleUpdate}), a replacement apart from an update, and commands
 * ({@code drop}, {@code renameCollection}, {@code dropDatabase}, {@code create}, {@code collMod},
 * {@code createIndexes}) as {@code db.$cmd} entries. Change events are made from it by {@link ChangeEvents}.
 *
 * <p>Optionally capped by entry count or size, as MongoDB's oplog is a capped collection
 * (https://www.mongodb.com/docs/manual/core/replica-set-oplog/#oplog-size): the oldest entries go first.
 */
public final class IndexedOplog implements Oplog {
    private final MongoBackend backend;
    private final CollectionCatalog catalog;
    /** Told the namespace of each write (as logged: {@code db.$cmd} for a command), after it is visible. */
    private final Consumer<String> onWrite;
    private final Clock clock;
    private final ConcurrentSkipListMap<Long, OplogEntry> entries = new ConcurrentSkipListMap<>();
    /** The document as each write left it, per namespace and {@code _id}: what the next update is diffed against. */
    private final Map<String, Map<Object, Document>> images = new ConcurrentHashMap<>();
    /** The older versions of the documents of namespaces read at a point in time (call it under this lock). */
    private final DocumentHistory history = new DocumentHistory();
    private final AtomicLong examined = new AtomicLong();
    private int increment;
    private long last;
    private long maxEntries;
    private long maxBytes;
    private long bytes;
    /** The timestamp of the newest entry the cap removed, 0 when none was. */
    private volatile long newestEvicted;
    /** The open transaction whose command runs now: its writes are kept there until it commits or aborts. */
    private TransactionWrites transaction;
    private final TransactionWrites.Owners owners = new TransactionWrites.Owners();

    public IndexedOplog(MongoBackend backend, CollectionCatalog catalog, Consumer<String> onWrite) {
        this.backend = backend;
        this.catalog = catalog;
        this.onWrite = onWrite;
        this.clock = backend.getClock();
    }

    /**
     * Caps the oplog at {@code maxEntries} entries and {@code maxBytes} bytes (0: no cap of that kind);
     * at least the newest entry always stays. Applies from the next write on.
     */
    public synchronized void cap(long maxEntries, long maxBytes) {
        if (maxEntries < 0 || maxBytes < 0) {
            throw new IllegalArgumentException("oplog caps are counts and sizes: 0 (none) or more");
        }
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        evict();
    }

    @Override
    public void handleInsert(String namespace, List<Document> documents) {
        // the stand-in hands over every document of the command, also those it refused (a duplicate key):
        // MongoDB's oplog holds only the writes that happened, so only the stored ones are logged
        for (Document d : documents) {
            if (!stored(namespace, d)) {
                continue;
            }
            Document copy = d.cloneDeeply();
            touched(namespace, d.get("_id"), imagesOf(namespace).put(d.get("_id"), copy));
            append(Op.INSERT, namespace, copy, d.get("_id"), null, null);
        }
        onWrite.accept(catalog.oplogNamespace(namespace));
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
        boolean images = catalog.recordsImages(namespace);
        for (Object id : modifiedIds) {
            Document after = current(namespace, id);
            if (after == null) {
                continue; // deleted before this call: the delete is logged on its own
            }
            after = after.cloneDeeply();
            Document before = imagesOf(namespace).put(id, after);
            touched(namespace, id, before);
            Document pre = images ? before : null;
            Document post = images ? after : null;
            if (replacement) {
                append(Op.REPLACE, namespace, after, id, pre, post);
            } else {
                append(Op.UPDATE, namespace, before != null ? UpdateDescriptions.diff(before, after) : UpdateDescriptions.describe(query, after), id, pre, post);
            }
        }
        onWrite.accept(catalog.oplogNamespace(namespace));
    }

    @Override
    public void handleDelete(String namespace, Document query, List<Object> deletedIds) {
        boolean images = catalog.recordsImages(namespace);
        for (Object id : deletedIds) {
            Document before = imagesOf(namespace).remove(id);
            touched(namespace, id, before);
            append(Op.DELETE, namespace, null, id, images ? before : null, null);
        }
        onWrite.accept(catalog.oplogNamespace(namespace));
    }

    /** MongoDB logs {@code {drop: coll}} on {@code db.$cmd}. The stand-in's internal system collections are not logged. */
    @Override
    public void handleDropCollection(String namespace) {
        images.remove(namespace);
        String collection = Namespaces.collection(catalog.oplogNamespace(namespace));
        if (collection.equals("system.namespaces") || collection.equals("system.indexes")) {
            return; // the stand-in's own bookkeeping, dropped with a database; MongoDB has no such collections
        }
        logCommand(Namespaces.database(namespace), new Document("drop", collection));
    }

    /**
     * Keeps the writes of {@code writes}' transaction out of the oplog while {@code command} runs: they become
     * entries only when it commits ({@link #commit}), as MongoDB logs a transaction's writes at commit; the command
     * runs under the lock that orders writes, so no other write is logged meanwhile. The transaction's documents are in
     * the collections only while it runs ({@link TransactionWrites#showIn}).
     */
    <T> T within(TransactionWrites writes, java.util.function.Supplier<T> command) {
        synchronized (this) {
            transaction = writes;
            writes.showIn(this::collectionOf, this::current);
        }
        try {
            return command.get();
        } finally {
            synchronized (this) {
                writes.hideFrom(this::collectionOf, this::current);
                transaction = null;
            }
        }
    }

    /** {@code writes}' transaction starts: its snapshot is taken now (see {@link TransactionWrites.Owners}). */
    synchronized void opened(TransactionWrites writes) {
        owners.opened(writes);
    }

    /** Whether any open transaction wrote a document. */
    synchronized boolean anyTransactionWrote() {
        return owners.any();
    }

    /** The open transaction that wrote the document {@code namespace}/{@code id}, or null. */
    synchronized TransactionWrites ownerOf(String namespace, Object id) {
        return owners.owner(new TransactionWrites.DocumentKey(namespace, id));
    }

    /**
     * Logs a committed transaction: its documents go into the collections for good, and one {@code applyOps} entry
     * on {@code admin.$cmd} at one timestamp holds its operations in the order they ran (see
     * {@link OplogEntry.Transaction}). A transaction that wrote nothing logs nothing, as on MongoDB.
     */
    public void commit(Document lsid, long txnNumber, TransactionWrites writes) {
        synchronized (this) {
            writes.showIn(this::collectionOf, this::current);
            owners.release(writes, true);
            if (writes.ops().isEmpty()) {
                return;
            }
            long ts = nextTimestamp();
            Instant now = clock.instant();
            List<OplogEntry> ops = writes.ops().stream().map(e -> e.committedAt(ts, now)).toList();
            long size = ops.stream().mapToLong(OplogEntry::bytes).sum();
            Document o = new Document("applyOps", ops.size());
            entries.put(ts, new OplogEntry(ts, now, Op.COMMAND, "admin.$cmd", o, null, null, null, size,
                    new OplogEntry.Transaction(lsid, txnNumber, ops), false));
            ops.forEach(history::wrote);
            bytes += size;
            evict();
        }
        onWrite.accept("admin.$cmd");
    }

    /**
     * Forgets an aborted transaction's writes: the collections hold the committed documents already, and what this
     * oplog knows of each document goes back to how it was before the transaction first wrote it. A collection the
     * transaction created goes too. Nothing is logged: MongoDB's oplog never held the writes of a transaction that did
     * not commit.
     */
    public synchronized void rollBack(TransactionWrites writes) {
        owners.release(writes, false);
        writes.before().forEach((key, before) -> {
            if (before == null) {
                imagesOf(key.namespace()).remove(key.id());
            } else {
                imagesOf(key.namespace()).put(key.id(), before);
            }
        });
        for (String namespace : writes.createdCollections()) {
            backend.resolveDatabase(Namespaces.database(namespace))
                    .dropCollection(Namespaces.collection(namespace), de.bwaldvogel.mongo.oplog.NoopOplog.get());
            images.remove(namespace);
            catalog.remove(namespace);
        }
    }

    /**
     * A write of the open transaction (if any) touched a document that was {@code before} (null: none) until then.
     * When another open transaction wrote it first, this one is in conflict: MongoDB answers WriteConflict to the later
     * writer (https://www.mongodb.com/docs/manual/core/transactions-production-consideration/#in-progress-transactions-and-write-conflicts),
     * and its abort puts back the first one's version.
     */
    private synchronized void touched(String namespace, Object id, Document before) {
        if (transaction == null) {
            owners.committed(new TransactionWrites.DocumentKey(namespace, id));
            return;
        }
        transaction.touched(namespace, id, before);
        owners.wrote(transaction, new TransactionWrites.DocumentKey(namespace, id));
    }

    /** Logs a command on {@code db.$cmd}, e.g. {@code {renameCollection: "db.a", to: "db.b"}}. */
    public void logCommand(String database, Document command) {
        synchronized (this) {
            if (transaction != null && command.get("create") instanceof String created) {
                transaction.created(database + "." + created);
            }
        }
        append(Op.COMMAND, database + ".$cmd", command, null, null, null);
        onWrite.accept(database + ".$cmd");
    }

    /** Moves what is known of a renamed collection's documents along with it. */
    public void renamed(String from, String to) {
        Map<Object, Document> moved = images.remove(from);
        if (moved != null) {
            images.put(to, moved);
        }
    }

    /**
     * Starts keeping the documents of {@code namespace} as they are, so that its next writes have
     * their pre-images (the collection's pre- and post-images were just enabled).
     */
    public void rememberDocuments(String namespace) {
        MongoCollection<?> collection = collectionOf(namespace);
        if (collection == null) {
            return;
        }
        Map<Object, Document> known = imagesOf(namespace);
        collection.handleQueryAsStream(new Document()).forEach(d -> known.putIfAbsent(d.get("_id"), d.cloneDeeply()));
    }

    /**
     * Change streams are opened by {@link ChangeStreams}, which reads this oplog directly; the stand-in's
     * own aggregate path never gets here because the backend answers {@code $changeStream} first.
     */
    @Override
    public Cursor createCursor(Document changeStream, String namespace, Aggregation aggregation) {
        throw new IllegalStateException("change streams are opened by " + ChangeStreams.class.getName());
    }

    private Map<Object, Document> imagesOf(String namespace) {
        return images.computeIfAbsent(namespace, ns -> new ConcurrentHashMap<>());
    }

    private void append(Op op, String namespace, Document o, Object id, Document pre, Document post) {
        append(op, namespace, o, id, pre, post, false);
    }

    /** Logs a chunk migration's write of one document ({@code fromMigrate: true}, see {@link ChunkMigration}). */
    void appendFromMigrate(Op op, String namespace, Document o, Object id) {
        append(op, namespace, o, id, null, null, true);
        onWrite.accept(catalog.oplogNamespace(namespace));
    }

    /**
     * Appends under a lock, so timestamps are handed out in the order entries become visible: a
     * reader never sees a later write before an earlier one, and {@link #highWaterMark()} (under the
     * same lock) is never below an entry that is not yet visible.
     */
    private synchronized void append(Op op, String namespace, Document o, Object id, Document pre, Document post, boolean fromMigrate) {
        String ns = op == Op.COMMAND ? namespace : catalog.oplogNamespace(namespace);
        long size = maxBytes > 0 ? BsonSize.approximate(o) + BsonSize.approximate(pre) + BsonSize.approximate(post) + 64 : 0;
        if (transaction != null && op != Op.COMMAND) {
            transaction.add(new OplogEntry(0, null, op, ns, o, id, pre, post, size));
            return;
        }
        long ts = nextTimestamp();
        Instant now = clock.instant();
        OplogEntry entry = new OplogEntry(ts, now, op, ns, o, id, pre, post, size, null, fromMigrate);
        entries.put(ts, entry);
        bytes += size;
        evict();
        switch (op) {
            case INSERT, REPLACE -> history.wrote(entry, o);
            case UPDATE -> history.wrote(entry, imagesOf(namespace).get(id)); // handleUpdate keeps the document after it there
            case DELETE -> history.wrote(entry, null);
            case COMMAND -> historyOfCommand(Namespaces.database(namespace), o, ts);
        }
    }

    /** What a drop, a rename or a dropped database does to the documents' history. */
    private void historyOfCommand(String database, Document command, long ts) {
        if (command.get("drop") instanceof String coll) {
            history.dropped(database + "." + coll, ts);
        } else if (command.get("renameCollection") instanceof String from && command.get("to") instanceof String to) {
            history.dropped(from, ts);
            history.arrivedWithoutEntries(to, ts);
        } else if (command.containsKey("dropDatabase")) {
            history.droppedDatabase(database, ts);
        }
    }

    /**
     * The document {@code id} of {@code namespace} as it was at {@code ts}: a read at a point in time
     * ({@link PointInTimeReads}, which runs it with the writes kept out). Null when there was none.
     *
     * @throws de.bwaldvogel.mongo.exception.MongoServerError SnapshotTooOld when this oplog no longer holds that
     *                                                          time, or does not know that document's state then
     */
    public Document documentAt(String namespace, Object id, long ts) {
        String ns = catalog.oplogNamespace(namespace);
        // read before this lock, as a write takes them: its collection's, then this one to log (the caller keeps writes out)
        Document now = current(namespace, id);
        DocumentHistory.Found found;
        synchronized (this) {
            if (newestEvicted != 0 && Long.compareUnsigned(ts, newestEvicted) <= 0) {
                throw ServerErrors.snapshotTooOld(new BsonTimestamp(ts), "the oplog no longer holds it");
            }
            if (!history.kept(ns)) {
                history.keep(ns, entries.values());
            }
            found = history.at(ns, id, ts, now);
        }
        if (found instanceof DocumentHistory.Known known) {
            return known.document();
        }
        throw ServerErrors.snapshotTooOld(new BsonTimestamp(ts), "the stand-in does not know " + ns + " " + id
                + " then (an update logged without its document before the first read at a point in time, or a rename)");
    }

    /** The next entry's timestamp: the clock's second and a counter, never back (call it under this lock). */
    private long nextTimestamp() {
        long ts = new BsonTimestamp(clock.instant(), ++increment).getValue();
        if (Long.compareUnsigned(ts, last) <= 0) {
            ts = last + 1;
        }
        last = ts;
        return ts;
    }

    private void evict() {
        while (entries.size() > 1 && (maxEntries > 0 && entries.size() > maxEntries || maxBytes > 0 && bytes > maxBytes)) {
            Map.Entry<Long, OplogEntry> oldest = entries.pollFirstEntry();
            bytes -= oldest.getValue().bytes();
            newestEvicted = oldest.getKey();
        }
    }

    /**
     * The cluster time a reader has seen everything up to: the latest entry's timestamp, or the
     * present (the clock's second with the last increment handed out) when that is later. The next
     * entry's timestamp is always greater.
     */
    public synchronized long highWaterMark() {
        long present = new BsonTimestamp(clock.instant(), increment).getValue();
        return Long.compareUnsigned(present, last) > 0 ? present : last;
    }

    /** The {@code operationTime} a replica-set member answers with: its latest cluster time. */
    public BsonTimestamp operationTime() {
        return new BsonTimestamp(highWaterMark());
    }

    /** The entries from {@code fromTs} (inclusive) up to {@code toTs} (inclusive), oldest first. */
    public Collection<OplogEntry> entriesBetween(long fromTs, long toTs) {
        if (Long.compareUnsigned(fromTs, toTs) > 0) {
            return List.of();
        }
        return entries.subMap(fromTs, true, toTs, true).values();
    }

    /** The timestamp of the newest entry the cap removed (0 when none was): history up to it is gone. */
    public long newestEvicted() {
        return newestEvicted;
    }

    /** Counts an entry a change-stream read examined. */
    void examined(long count) {
        examined.addAndGet(count);
    }

    /** Oplog entries examined by change-stream reads so far. */
    public long entriesExamined() {
        return examined.get();
    }

    /** Entries held now. */
    public int size() {
        return entries.size();
    }

    /** Whether this very document is stored in its collection now (an insert the server kept). */
    private boolean stored(String namespace, Document document) {
        if (collectionOf(namespace) instanceof StandInDatabase.IdCheckingCollection standIn) {
            return standIn.stores(document);
        }
        return current(namespace, document.get("_id")) == document;
    }

    /** The document as it is now, through the {@code _id} index; null once it is gone, as MongoDB answers. */
    public Document current(String namespace, Object id) {
        MongoCollection<?> collection = collectionOf(namespace);
        if (collection == null) {
            return null;
        }
        if (collection instanceof StandInDatabase.IdCheckingCollection standIn) {
            return standIn.documentWithId(id); // not a client's query: not counted as documents examined
        }
        Iterator<Document> found = collection.handleQuery(new Document("_id", id), 0, 1).iterator();
        return found.hasNext() ? found.next() : null;
    }

    private MongoCollection<?> collectionOf(String namespace) {
        MongoDatabase database = backend.resolveDatabase(Namespaces.database(namespace));
        return database.resolveCollection(Namespaces.collection(namespace), false);
    }
}
