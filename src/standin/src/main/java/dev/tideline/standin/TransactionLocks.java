package dev.tideline.standin;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.List;

/**
 * The documents a write outside any transaction is about to write, so that it waits for an open transaction that
 * wrote one of them, as MongoDB's does: "if a transaction is in progress and has taken a lock to modify a document,
 * when a write outside the transaction tries to modify the same document, the write waits until the transaction
 * ends" (https://www.mongodb.com/docs/manual/core/transactions-production-consideration/#in-progress-transactions-and-write-conflicts).
 * An insert's documents by their {@code _id}; an update's, delete's or findAndModify's by its filter on the committed
 * documents (what the write itself will match, through the same index), plus the filter's {@code _id} for an upsert.
 */
final class TransactionLocks {
    private TransactionLocks() {
    }

    /** The open transaction holding a document {@code query} (the write {@code name}) would write, or null. */
    static TransactionWrites holder(IndexedOplog log, MongoDatabase database, String name, Document query) {
        if (!log.anyTransactionWrote() || !(query.get(commandKey(name, query)) instanceof String collectionName)) {
            return null;
        }
        String namespace = database.getDatabaseName() + "." + collectionName;
        MongoCollection<?> collection = database.resolveCollection(collectionName, false);
        for (Object id : ids(name, query, collection)) {
            TransactionWrites owner = log.ownerOf(namespace, id);
            if (owner != null) {
                return owner;
            }
        }
        return null;
    }

    private static String commandKey(String name, Document query) {
        return query.keySet().stream().filter(k -> k.equalsIgnoreCase(name)).findFirst().orElse(name);
    }

    private static List<Object> ids(String name, Document query, MongoCollection<?> collection) {
        List<Object> ids = new ArrayList<>();
        switch (name) {
            case "insert" -> statements(query, "documents").forEach(d -> addId(ids, d));
            case "update" -> statements(query, "updates").forEach(s -> matching(ids, collection, s.get("q")));
            case "delete" -> statements(query, "deletes").forEach(s -> matching(ids, collection, s.get("q")));
            case "findandmodify" -> matching(ids, collection, query.get("query"));
            default -> {
            }
        }
        return ids;
    }

    private static List<Document> statements(Document query, String key) {
        List<Document> out = new ArrayList<>();
        if (query.get(key) instanceof List<?> list) {
            list.stream().filter(Document.class::isInstance).map(Document.class::cast).forEach(out::add);
        }
        return out;
    }

    private static void matching(List<Object> ids, MongoCollection<?> collection, Object filter) {
        if (!(filter instanceof Document q)) {
            return;
        }
        addId(ids, q); // an upsert's new document takes the filter's _id
        if (collection != null) {
            collection.handleQuery(q).forEach(d -> ids.add(d.get("_id")));
        }
    }

    private static void addId(List<Object> ids, Document d) {
        Object id = d.get("_id");
        if (id != null && !(id instanceof Document operators && operators.keySet().stream().anyMatch(k -> k.startsWith("$")))) {
            ids.add(id);
        }
    }
}
