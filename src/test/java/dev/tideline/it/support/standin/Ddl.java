package dev.tideline.it.support.standin;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.NoopOplog;
import java.util.List;
import java.util.function.Supplier;

/**
 * Collection-level commands as a replica-set member logs them, so that change streams report them
 * (https://www.mongodb.com/docs/manual/reference/change-events/): {@code renameCollection},
 * {@code dropDatabase}, explicit and implicit collection creation, {@code createIndexes}. The stand-in
 * carries them out; this class adds the oplog entries it does not write, in MongoDB's order (an
 * implicit {@code create} before the insert that made it, {@code dropDatabase} after its collections'
 * {@code drop}s). Callers hold the backend's write lock.
 */
public final class Ddl {
    private final MongoBackend backend;
    private final CollectionCatalog catalog;
    private final Supplier<IndexedOplog> oplog;

    /** @param oplog the oplog, or null while the server runs without one (nothing is logged then) */
    public Ddl(MongoBackend backend, CollectionCatalog catalog, Supplier<IndexedOplog> oplog) {
        this.backend = backend;
        this.catalog = catalog;
        this.oplog = oplog;
    }

    /**
     * {@code renameCollection} (on admin): MongoDB logs one {@code renameCollection} entry; with
     * {@code dropTarget} the target it replaces goes with it, without a {@code drop} of its own
     * (https://www.mongodb.com/docs/manual/reference/command/renameCollection/).
     */
    public Document rename(Document query, java.util.function.Function<Document, Document> run) {
        String from = String.valueOf(query.get("renameCollection"));
        String to = String.valueOf(query.get("to"));
        Object droppedTarget = null;
        if (Boolean.TRUE.equals(query.get("dropTarget")) || Integer.valueOf(1).equals(query.get("dropTarget"))) {
            MongoDatabase target = backend.resolveDatabase(Namespaces.database(to));
            MongoCollection<?> existing = target.resolveCollection(Namespaces.collection(to), false);
            if (existing != null && !from.equals(to) && resolve(from) != null) {
                droppedTarget = existing.getUuid();
                target.dropCollection(Namespaces.collection(to), NoopOplog.get());
                catalog.remove(to);
            }
        }
        Document forward = query.clone();
        forward.remove("dropTarget");
        Document reply = run.apply(forward);
        if (isOk(reply) && !from.equals(to)) {
            catalog.rename(from, to);
            IndexedOplog log = oplog.get();
            if (log != null) {
                log.renamed(from, to);
                Document entry = new Document("renameCollection", from).append("to", to);
                if (droppedTarget != null) {
                    entry.append("dropTarget", droppedTarget);
                }
                log.logCommand(Namespaces.database(from), entry);
            }
        }
        return reply;
    }

    /** {@code dropDatabase}: the stand-in logs each collection's {@code drop}; MongoDB then logs {@code dropDatabase}. */
    public Document dropDatabase(String database, Supplier<Document> run) {
        Document reply = run.get();
        if (isOk(reply)) {
            catalog.dropDatabase(database);
            IndexedOplog log = oplog.get();
            if (log != null) {
                log.logCommand(database, new Document("dropDatabase", 1));
            }
        }
        return reply;
    }

    /**
     * A write that creates its collection (insert, an upsert, {@code createIndexes}): MongoDB creates
     * the collection first, as a {@code create} entry of its own, then writes. Updates without upsert
     * do not create one: {@link #createsNothing} answers them when the collection is absent.
     */
    public void createImplicitly(String database, String collection) {
        if (collection == null || Namespaces.isSystem(collection) || collection.contains("$") || collection.isEmpty()) {
            return; // refused by the write itself
        }
        MongoDatabase db = backend.resolveDatabase(database);
        if (db.resolveCollection(collection, false) == null) {
            db.createCollectionOrThrowIfExists(collection, CollectionOptions.withDefaults());
            logCreate(database, collection, new Document());
        }
    }

    /** Logs the {@code create} of a collection (or view), with the options it was created with. */
    public void logCreate(String database, String collection, Document options) {
        IndexedOplog log = oplog.get();
        if (log == null) {
            return;
        }
        Document entry = new Document("create", collection);
        CollectionCatalog.Kind kind = catalog.kind(database + "." + collection);
        if (kind != CollectionCatalog.Kind.VIEW) {
            entry.append("idIndex", new Document("v", 2).append("key", new Document("_id", 1)).append("name", "_id_"));
        }
        entry.putAll(options);
        entry.append("nsType", kind.type());
        log.logCommand(database, entry);
    }

    /** Logs {@code createIndexes} with the indexes it was asked for. */
    public void logCreateIndexes(String database, Document query) {
        IndexedOplog log = oplog.get();
        if (log != null && query.get("indexes") instanceof List<?> indexes) {
            log.logCommand(database, new Document("createIndexes", query.get("createIndexes")).append("indexes", indexes));
        }
    }

    /**
     * MongoDB's answer to an update (or findAndModify) without upsert on a collection that does not
     * exist: nothing matched, nothing created. The stand-in would create the collection; null when the
     * command must run.
     */
    public Document createsNothing(String database, String command, Document query) {
        Object collection = query.get(command);
        if (!(collection instanceof String name) || resolve(database + "." + name) != null || upserts(command, query)) {
            return null;
        }
        Document reply = command.equalsIgnoreCase("update")
                ? new Document("n", 0).append("nModified", 0)
                : new Document("lastErrorObject", new Document("n", 0).append("updatedExisting", false)).append("value", null);
        return reply.append("ok", 1.0);
    }

    private static boolean upserts(String command, Document query) {
        if (command.equalsIgnoreCase("findAndModify")) {
            return Boolean.TRUE.equals(query.get("upsert"));
        }
        return query.get("updates") instanceof List<?> updates
                && updates.stream().anyMatch(u -> u instanceof Document d && Boolean.TRUE.equals(d.get("upsert")));
    }

    private MongoCollection<?> resolve(String namespace) {
        return backend.resolveDatabase(Namespaces.database(namespace)).resolveCollection(Namespaces.collection(namespace), false);
    }

    public static boolean isOk(Document reply) {
        return reply != null && reply.get("ok") instanceof Number ok && ok.doubleValue() == 1.0;
    }
}
