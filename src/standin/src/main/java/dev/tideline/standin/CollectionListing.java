package dev.tideline.standin;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.DefaultQueryMatcher;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code listCollections} as MongoDB answers it (https://www.mongodb.com/docs/manual/reference/command/listCollections/):
 * each namespace with its {@code type} ({@code collection}, {@code view}, {@code timeseries}) and
 * {@code options}; {@code system.views} once the database has views, and a time-series collection's
 * {@code system.buckets.<name>}; the {@code filter} applied to those documents; {@code nameOnly}
 * answering {@code {name, type}} only. mongo-java-server lists every collection as a plain one and
 * ignores both arguments.
 */
public final class CollectionListing {
    private final MongoBackend backend;
    private final CollectionCatalog catalog;

    public CollectionListing(MongoBackend backend, CollectionCatalog catalog) {
        this.backend = backend;
        this.catalog = catalog;
    }

    /** Rewrites the stand-in's own answer ({@code plain}, every collection as a plain one) to MongoDB's. */
    public Document list(String database, Document query, Document plain) {
        List<Document> entries = new ArrayList<>();
        @SuppressWarnings("unchecked")
        List<Document> collections = (List<Document>) ((Document) plain.get("cursor")).get("firstBatch");
        for (Document c : collections) {
            String name = (String) c.get("name");
            CollectionCatalog.Info info = catalog.info(database + "." + name).orElse(null);
            if (info != null && info.kind() == CollectionCatalog.Kind.TIMESERIES) {
                entries.add(new Document("name", name).append("type", "timeseries").append("options", info.options())
                        .append("info", new Document("readOnly", false)));
                entries.add(new Document("name", "system.buckets." + name).append("type", "collection")
                        .append("options", new Document("validator", new Document()).append("clusteredIndex", true)
                                .append("timeseries", info.options().get("timeseries")))
                        .append("info", new Document("readOnly", false)));
            } else {
                if (info != null) {
                    c.put("options", info.options());
                }
                entries.add(c);
            }
        }
        MongoDatabase db = backend.resolveDatabase(database);
        if (db.resolveCollection("system.views", false) != null) {
            entries.add(new Document("name", "system.views").append("type", "collection").append("options", new Document())
                    .append("info", new Document("readOnly", false))
                    .append("idIndex", new Document("v", 2).append("key", new Document("_id", 1)).append("name", "_id_")));
        }
        for (Map.Entry<String, CollectionCatalog.Info> view : catalog.views(database).entrySet()) {
            entries.add(new Document("name", Namespaces.collection(view.getKey())).append("type", "view")
                    .append("options", view.getValue().options()).append("info", new Document("readOnly", true)));
        }
        entries.sort(Comparator.comparing(e -> (String) e.get("name")));

        Document filter = query.get("filter") instanceof Document f ? f : new Document();
        boolean nameOnly = Boolean.TRUE.equals(query.get("nameOnly"));
        DefaultQueryMatcher matcher = new DefaultQueryMatcher();
        List<Document> batch = new ArrayList<>();
        for (Document e : entries) {
            if (matcher.matches(e, filter)) {
                batch.add(nameOnly ? new Document("name", e.get("name")).append("type", e.get("type")) : e);
            }
        }
        ((Document) plain.get("cursor")).put("firstBatch", batch);
        return plain;
    }
}
