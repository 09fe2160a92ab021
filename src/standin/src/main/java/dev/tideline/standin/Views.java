package dev.tideline.standin;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Read-only views (https://www.mongodb.com/docs/manual/core/views/): defined by {@code create} with
 * {@code viewOn} and {@code pipeline}, kept in the database's {@code system.views} collection as MongoDB
 * keeps them, read through their pipeline ({@code find}, {@code aggregate}, {@code count},
 * {@code distinct}), and refused to writes, indexes and change streams with CommandNotSupportedOnView (166).
 */
public final class Views {
    private static final String SYSTEM_VIEWS = "system.views";
    private static final Set<String> WRITES = Set.of("insert", "update", "delete", "findandmodify", "createindexes", "dropindexes");

    private final MongoBackend backend;
    private final CollectionCatalog catalog;

    public Views(MongoBackend backend, CollectionCatalog catalog) {
        this.backend = backend;
        this.catalog = catalog;
    }

    /** A write (or index command) on a view: MongoDB refuses it with 166. */
    public void refuseWrite(String database, String lowerCaseCommand, Document query, String command) {
        if (WRITES.contains(lowerCaseCommand) && query.get(command) instanceof String name && catalog.isView(database + "." + name)) {
            throw ServerErrors.commandNotSupportedOnView(database + "." + name);
        }
    }

    /** {@code create} with {@code viewOn}: a view, recorded in {@code system.views}; no collection is made. */
    public void create(String database, String name, Document create) {
        if (!(create.get("viewOn") instanceof String viewOn) || viewOn.isEmpty()) {
            throw ServerErrors.error(ServerErrors.BAD_VALUE, "BadValue", "'viewOn' must be a non-empty string");
        }
        Object pipeline = create.getOrDefault("pipeline", List.of());
        if (!(pipeline instanceof List<?>)) {
            throw ServerErrors.error(14, "TypeMismatch", "'pipeline' must be an array");
        }
        String ns = database + "." + name;
        MongoDatabase db = backend.resolveDatabase(database);
        if (catalog.isView(ns) || db.resolveCollection(name, false) != null) {
            throw ServerErrors.error(ServerErrors.NAMESPACE_EXISTS, "NamespaceExists", "Namespace already exists: " + ns);
        }
        catalog.put(ns, new CollectionCatalog.Info(CollectionCatalog.Kind.VIEW,
                new Document("viewOn", viewOn).append("pipeline", pipeline)));
        systemViews(db).addDocument(new Document("_id", ns).append("viewOn", viewOn).append("pipeline", pipeline));
    }

    /** {@code drop} of a view: its definition goes; the collection it reads stays. */
    public Document drop(String database, String name) {
        String ns = database + "." + name;
        catalog.remove(ns);
        MongoCollection<?> views = backend.resolveDatabase(database).resolveCollection(SYSTEM_VIEWS, false);
        if (views != null) {
            views.deleteDocuments(new Document("_id", ns), 1);
        }
        return new Document("ns", ns).append("ok", 1.0);
    }

    private static MongoCollection<?> systemViews(MongoDatabase db) {
        MongoCollection<?> views = db.resolveCollection(SYSTEM_VIEWS, false);
        return views != null ? views : db.createCollectionOrThrowIfExists(SYSTEM_VIEWS, CollectionOptions.withDefaults());
    }

    /**
     * A read of a view, as MongoDB runs it: the view's pipeline (and those of the views it reads) on the
     * collection underneath, followed by what the command asks. Null when {@code command} does not read
     * a view.
     *
     * @param aggregate runs an {@code aggregate} command on the database
     */
    public Document read(String database, String lowerCaseCommand, Document query, String command,
                         Function<Document, Document> aggregate) {
        if (!(query.get(command) instanceof String name) || !catalog.isView(database + "." + name)) {
            return null;
        }
        List<Document> pipeline = new ArrayList<>();
        String source = resolve(database, name, pipeline);
        switch (lowerCaseCommand) {
            case "find" -> {
                addIf(pipeline, "$match", query.get("filter"));
                addIf(pipeline, "$sort", query.get("sort"));
                addIf(pipeline, "$skip", query.get("skip"));
                addIf(pipeline, "$limit", query.get("limit"));
                addIf(pipeline, "$project", query.get("projection"));
            }
            case "aggregate" -> {
                for (Object stage : (List<?>) query.getOrDefault("pipeline", List.of())) {
                    pipeline.add((Document) stage);
                }
            }
            case "count" -> {
                addIf(pipeline, "$match", query.get("query"));
                addIf(pipeline, "$skip", query.get("skip"));
                addIf(pipeline, "$limit", query.get("limit"));
                pipeline.add(new Document("$count", "n"));
            }
            case "distinct" -> {
                addIf(pipeline, "$match", query.get("query"));
                pipeline.add(new Document("$group", new Document("_id", null)
                        .append("values", new Document("$addToSet", "$" + query.get("key")))));
            }
            default -> {
                return null;
            }
        }
        Document reply = aggregate.apply(new Document("aggregate", source).append("pipeline", pipeline).append("cursor", new Document()));
        List<?> batch = (List<?>) ((Document) reply.get("cursor")).get("firstBatch");
        return switch (lowerCaseCommand) {
            case "count" -> new Document("n", batch.isEmpty() ? 0 : ((Document) batch.get(0)).get("n")).append("ok", 1.0);
            case "distinct" -> new Document("values", batch.isEmpty() ? List.of() : ((Document) batch.get(0)).get("values"))
                    .append("ok", 1.0);
            default -> {
                ((Document) reply.get("cursor")).put("ns", database + "." + name);
                yield reply;
            }
        };
    }

    /** The collection a view reads in the end, with the pipelines of the views on the way, outermost last. */
    private String resolve(String database, String view, List<Document> pipeline) {
        List<List<Document>> chain = new ArrayList<>();
        String name = view;
        for (int depth = 0; catalog.isView(database + "." + name); depth++) {
            if (depth > 20) {
                throw ServerErrors.error(ServerErrors.BAD_VALUE, "ViewDepthLimitExceeded", "View depth too deep or view cycle detected");
            }
            Document options = catalog.info(database + "." + name).orElseThrow().options();
            List<Document> stages = new ArrayList<>();
            ((List<?>) options.get("pipeline")).forEach(s -> stages.add((Document) s));
            chain.add(0, stages);
            name = (String) options.get("viewOn");
        }
        chain.forEach(pipeline::addAll);
        return name;
    }

    private static void addIf(List<Document> pipeline, String stage, Object argument) {
        if (argument == null || argument instanceof Document d && d.isEmpty()) {
            return;
        }
        if (argument instanceof Number n) {
            long value = Math.abs(n.longValue()); // find's negative limit: a single batch of that many
            if (value == 0) {
                return; // no skip, no limit
            }
            argument = value;
        }
        pipeline.add(new Document(stage, argument));
    }
}
