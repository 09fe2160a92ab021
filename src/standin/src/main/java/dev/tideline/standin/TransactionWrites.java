package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The writes of one open multi-document transaction, held back from the oplog until it commits
 * (https://www.mongodb.com/docs/manual/core/transactions/: "until a transaction commits, the data changes made in the
 * transaction are not visible outside the transaction"; for change streams, a transaction's events appear at its
 * commit), and what each touched document was before the transaction first wrote it, so that an abort puts it back.
 * Used under the lock that orders writes.
 */
final class TransactionWrites {
    /** A document by namespace and {@code _id}. */
    record DocumentKey(String namespace, Object id) {
    }

    /** The open transaction that wrote each document, until it commits or aborts. */
    static final class Owners {
        private final Map<DocumentKey, TransactionWrites> byDocument = new java.util.HashMap<>();

        /** {@code writes} wrote {@code key}: in conflict when another open transaction wrote it first. */
        void wrote(TransactionWrites writes, DocumentKey key) {
            TransactionWrites first = byDocument.putIfAbsent(key, writes);
            if (first != null && first != writes) {
                writes.conflicted = true;
            }
        }

        /** The documents {@code writes} wrote are no longer an open transaction's: it committed or aborted. */
        void release(TransactionWrites writes) {
            writes.before.keySet().forEach(key -> byDocument.remove(key, writes));
        }
    }

    private final List<OplogEntry> ops = new ArrayList<>();
    /** The first image of each touched document (null: it did not exist), in the order first touched. */
    private final Map<DocumentKey, Document> before = new LinkedHashMap<>();
    /** A write of this transaction touched a document another open transaction had written. */
    private boolean conflicted;

    void add(OplogEntry op) {
        ops.add(op);
    }

    void touched(String namespace, Object id, Document image) {
        DocumentKey key = new DocumentKey(namespace, id);
        if (!before.containsKey(key)) { // not putIfAbsent: a null image (inserted here) must stay
            before.put(key, image);
        }
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
}
