package dev.tideline.standin;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.NoopOplog;
import java.util.List;
import java.util.Set;
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
    /** Options a collection keeps and {@code listCollections} shows, as {@code create} and {@code collMod} take them. */
    private static final Set<String> COLLECTION_OPTIONS = Set.of("capped", "size", "max", "validator", "validationLevel",
            "validationAction", "collation", "changeStreamPreAndPostImages", "expireAfterSeconds", "clusteredIndex", "timeseries",
            "viewOn", "pipeline", "storageEngine", "indexOptionDefaults");

    private final MongoBackend backend;
    private final CollectionCatalog catalog;
    private final Views views;
    private final Supplier<IndexedOplog> oplog;

    /** @param oplog the oplog, or null while the server runs without one (nothing is logged then) */
    public Ddl(MongoBackend backend, CollectionCatalog catalog, Views views, Supplier<IndexedOplog> oplog) {
        this.backend = backend;
        this.catalog = catalog;
        this.views = views;
        this.oplog = oplog;
    }

    /**
     * {@code create} (https://www.mongodb.com/docs/manual/reference/command/create/): a view with
     * {@code viewOn}, a time-series collection with {@code timeseries}, or a collection, whose options
     * (e.g. {@code changeStreamPreAndPostImages}) are kept for {@code listCollections} and the oplog.
     */
    public Document create(String database, Document query, Supplier<Document> run) {
        String name = String.valueOf(query.get("create"));
        String ns = database + "." + name;
        Document options = options(query);
        if (options.containsKey("viewOn")) {
            views.create(database, name, options);
            logCreate(database, name, catalog.info(ns).orElseThrow().options());
            return new Document("ok", 1.0);
        }
        if (catalog.isView(ns)) {
            throw ServerErrors.error(ServerErrors.NAMESPACE_EXISTS, "NamespaceExists", "Namespace already exists: " + ns);
        }
        CollectionCatalog.Kind kind = CollectionCatalog.Kind.COLLECTION;
        if (options.get("timeseries") instanceof Document timeseries) {
            options.put("timeseries", timeseries(timeseries));
            kind = CollectionCatalog.Kind.TIMESERIES;
        }
        Document reply = run.get(); // the stand-in makes the collection; it ignores the options it does not know
        if (isOk(reply)) {
            if (!options.isEmpty()) {
                catalog.put(ns, new CollectionCatalog.Info(kind, options));
            }
            rememberDocumentsIfImages(ns);
            logCreate(database, name, options);
        }
        return reply;
    }

    /** MongoDB's defaults for a time-series collection's options; {@code timeField} is required. */
    private static Document timeseries(Document given) {
        if (!(given.get("timeField") instanceof String)) {
            throw ServerErrors.error(40414, "Location40414", "BSON field 'create.timeseries.timeField' is missing but a required field");
        }
        Document out = new Document("timeField", given.get("timeField"));
        if (given.get("metaField") != null) {
            out.append("metaField", given.get("metaField"));
        }
        out.append("granularity", given.getOrDefault("granularity", "seconds"));
        out.append("bucketMaxSpanSeconds", given.getOrDefault("bucketMaxSpanSeconds", 3600));
        return out;
    }

    /**
     * {@code collMod} (https://www.mongodb.com/docs/manual/reference/command/collMod/): changes a collection's
     * options (e.g. enables pre- and post-images) or a view's definition; MongoDB logs it, and a stream with
     * expanded events reports it as {@code modify}. mongo-java-server does not know the command.
     */
    public Document collMod(String database, Document query) {
        String name = String.valueOf(query.get("collMod"));
        String ns = database + "." + name;
        Document changed = options(query);
        if (catalog.isView(ns)) {
            Document definition = catalog.info(ns).orElseThrow().options().clone();
            definition.putAll(changed);
            views.drop(database, name);
            views.create(database, name, definition);
            return new Document("ok", 1.0);
        }
        if (backend.resolveDatabase(database).resolveCollection(name, false) == null) {
            throw ServerErrors.error(ServerErrors.NAMESPACE_NOT_FOUND, "NamespaceNotFound", "ns does not exist: " + ns);
        }
        CollectionCatalog.Info info = catalog.info(ns)
                .orElse(new CollectionCatalog.Info(CollectionCatalog.Kind.COLLECTION, new Document()));
        Document before = info.options().clone();
        Document after = info.options().clone();
        after.putAll(changed);
        catalog.put(ns, new CollectionCatalog.Info(info.kind(), after));
        rememberDocumentsIfImages(ns);
        IndexedOplog log = oplog.get();
        if (log != null) {
            Document entry = new Document("collMod", name);
            entry.putAll(changed);
            entry.append("stateBeforeChange", new Document("collectionOptions", before));
            log.logCommand(database, entry);
        }
        return new Document("ok", 1.0);
    }

    /** {@code drop}: of a view, its definition; of a collection, the stand-in's drop (logged by the oplog) and its options. */
    public Document drop(String database, Document query, Supplier<Document> run) {
        String name = String.valueOf(query.get("drop"));
        String ns = database + "." + name;
        if (catalog.isView(ns)) {
            return views.drop(database, name);
        }
        Document reply = run.get();
        if (isOk(reply)) {
            catalog.remove(ns);
        }
        return reply;
    }

    private void rememberDocumentsIfImages(String ns) {
        IndexedOplog log = oplog.get();
        if (log != null && catalog.recordsImages(ns)) {
            log.rememberDocuments(ns);
        }
    }

    /** The collection options of a {@code create} or {@code collMod}, without its generic fields ($db, lsid, writeConcern...). */
    private static Document options(Document command) {
        Document options = new Document();
        command.forEach((k, v) -> {
            if (COLLECTION_OPTIONS.contains(k)) {
                options.append(k, v);
            }
        });
        return options;
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

    /**
     * {@code dropDatabase}: the stand-in logs each collection's {@code drop}; MongoDB then logs {@code dropDatabase}
     * ("A dropDatabase command generates a drop event for each collection in the database before generating a
     * dropDatabase event for the database", https://www.mongodb.com/docs/manual/reference/change-events/dropDatabase/).
     */
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
        if (kind == CollectionCatalog.Kind.COLLECTION) {
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
