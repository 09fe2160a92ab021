package dev.tideline.standin;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The writes of one open multi-document transaction, held back from the oplog until it commits
 * (https://www.mongodb.com/docs/manual/core/transactions/: "until a transaction commits, the data changes made in the
 * transaction are not visible outside the transaction"; for change streams, a transaction's events appear at its
 * commit), and held back from the collections too: they hold the committed documents, and the transaction's own
 * versions are put in only while one of its commands runs ({@link #showIn}, {@link #hideFrom}) and for good at its
 * commit. So readers outside it see what was committed, and an abort has nothing to undo in the collections. What each
 * touched document was before the transaction first wrote it is kept to put it back. Each swap costs one {@code _id}
 * index lookup per document the transaction wrote, not a scan. Used under the lock that orders writes.
 */
final class TransactionWrites {
    /** A document by namespace and {@code _id}. */
    record DocumentKey(String namespace, Object id) {
    }

    /**
     * The open transaction that wrote each document, until it commits or aborts, and when documents were last
     * committed while a transaction was open: MongoDB's transactions read from a snapshot taken when they start, and
     * one that writes a document committed after its snapshot is in conflict
     * (https://www.mongodb.com/docs/manual/core/transactions-production-consideration/#in-progress-transactions-and-write-conflicts).
     */
    static final class Owners {
        private final Map<DocumentKey, TransactionWrites> byDocument = new HashMap<>();
        private final Map<DocumentKey, Long> committedAt = new HashMap<>();
        private final Set<TransactionWrites> open = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        private long commits;

        /** {@code writes} takes its snapshot now: it conflicts with what is committed from here on. */
        void opened(TransactionWrites writes) {
            writes.snapshot = commits;
            open.add(writes);
        }

        /**
         * {@code writes} wrote {@code key}: in conflict when another open transaction wrote it, or when it was committed
         * after {@code writes}' snapshot.
         */
        void wrote(TransactionWrites writes, DocumentKey key) {
            TransactionWrites first = byDocument.putIfAbsent(key, writes);
            if (first != null && first != writes || committedAt.getOrDefault(key, Long.MIN_VALUE) > writes.snapshot) {
                writes.conflicted = true;
            }
        }

        /** The open transaction that wrote {@code key}, if any: a write outside it waits for its end. */
        TransactionWrites owner(DocumentKey key) {
            return byDocument.get(key);
        }

        boolean any() {
            return !byDocument.isEmpty();
        }

        /** {@code key} was written outside any transaction; remembered only while a snapshot could predate it. */
        void committed(DocumentKey key) {
            if (!open.isEmpty()) {
                committedAt.put(key, ++commits);
            }
        }

        /** The documents {@code writes} wrote are no longer an open transaction's: it committed or aborted. */
        void release(TransactionWrites writes, boolean committed) {
            writes.before.keySet().forEach(key -> {
                byDocument.remove(key, writes);
                if (committed) {
                    committed(key);
                }
            });
            open.remove(writes);
            if (open.isEmpty()) {
                committedAt.clear(); // no open snapshot is older than any of these
            }
        }
    }

    private final List<OplogEntry> ops = new ArrayList<>();
    /** The first image of each touched document (null: it did not exist), in the order first touched. */
    private final Map<DocumentKey, Document> before = new LinkedHashMap<>();
    /** Each touched document as this transaction left it (null: deleted), while it is hidden from the collections. */
    private final Map<DocumentKey, Document> after = new HashMap<>();
    /** Collections created inside the transaction: an abort drops them, as MongoDB's abort undoes the create. */
    private final List<String> created = new ArrayList<>();
    /** A write of this transaction touched a document another open transaction had written. */
    private boolean conflicted;
    private long snapshot;
    private final java.time.Instant started;

    TransactionWrites(java.time.Instant started) {
        this.started = started;
    }

    /** When the transaction started (its lifetime limit counts from then). */
    java.time.Instant started() {
        return started;
    }

    void add(OplogEntry op) {
        ops.add(op);
    }

    void touched(String namespace, Object id, Document image) {
        DocumentKey key = new DocumentKey(namespace, id);
        if (!before.containsKey(key)) { // not putIfAbsent: a null image (inserted here) must stay
            before.put(key, image);
        }
    }

    void created(String namespace) {
        created.add(namespace);
    }

    /** Collections created inside the transaction, in the order they were. */
    List<String> createdCollections() {
        return Collections.unmodifiableList(created);
    }

    /** Whether it wrote a document another open transaction had written first (MongoDB: WriteConflict). */
    boolean hasConflict() {
        return conflicted;
    }

    /** The operations in the order they ran, not yet stamped with a timestamp. */
    List<OplogEntry> ops() {
        return Collections.unmodifiableList(ops);
    }

    Map<DocumentKey, Document> before() {
        return Collections.unmodifiableMap(before);
    }

    /** Puts this transaction's versions of the documents it wrote in place of the committed ones. */
    void showIn(Function<String, MongoCollection<?>> collections, DocumentFinder current) {
        after.forEach((key, mine) -> replace(collections.apply(key.namespace()), current.find(key.namespace(), key.id()), mine));
        after.clear();
    }

    /** Puts the committed versions back in place of this transaction's, which it keeps for its next command. */
    void hideFrom(Function<String, MongoCollection<?>> collections, DocumentFinder current) {
        before.forEach((key, committed) -> {
            Document mine = current.find(key.namespace(), key.id());
            after.put(key, mine);
            replace(collections.apply(key.namespace()), mine, committed == null ? null : committed.cloneDeeply());
        });
    }

    private static void replace(MongoCollection<?> collection, Document now, Document next) {
        if (collection == null) {
            return; // dropped meanwhile: nothing to show or hide
        }
        if (now != null) {
            collection.removeDocument(now);
        }
        if (next != null) {
            collection.addDocument(next);
        }
    }

    /** A document by namespace and {@code _id}, through the {@code _id} index. */
    interface DocumentFinder {
        Document find(String namespace, Object id);
    }
}
