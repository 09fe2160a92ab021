package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the stand-in keeps of a namespace beyond its documents: whether it is a view or a time-series
 * collection, and the options it was created or modified with (as {@code listCollections} reports
 * them, https://www.mongodb.com/docs/manual/reference/command/listCollections/). Plain collections
 * created without options have no entry.
 */
public final class CollectionCatalog {
    /** {@code listCollections}' {@code type}. */
    public enum Kind {
        COLLECTION("collection"), VIEW("view"), TIMESERIES("timeseries");

        private final String type;

        Kind(String type) {
            this.type = type;
        }

        public String type() {
            return type;
        }
    }

    /** A namespace's kind and options ({@code {viewOn, pipeline}}, {@code {timeseries: {...}}}, {@code {changeStreamPreAndPostImages: ...}}). */
    public record Info(Kind kind, Document options) {
    }

    private final Map<String, Info> byNamespace = new ConcurrentHashMap<>();

    public Optional<Info> info(String namespace) {
        return Optional.ofNullable(byNamespace.get(namespace));
    }

    public Kind kind(String namespace) {
        Info info = byNamespace.get(namespace);
        return info == null ? Kind.COLLECTION : info.kind();
    }

    public boolean isView(String namespace) {
        return kind(namespace) == Kind.VIEW;
    }

    public void put(String namespace, Info info) {
        byNamespace.put(namespace, info);
    }

    public void remove(String namespace) {
        byNamespace.remove(namespace);
    }

    public void rename(String from, String to) {
        Info info = byNamespace.remove(from);
        if (info != null) {
            byNamespace.put(to, info);
        }
    }

    public void dropDatabase(String database) {
        byNamespace.keySet().removeIf(ns -> Namespaces.database(ns).equals(database));
    }

    /** The views of {@code database}, by namespace. */
    public Map<String, Info> views(String database) {
        Map<String, Info> views = new java.util.TreeMap<>();
        byNamespace.forEach((ns, info) -> {
            if (info.kind() == Kind.VIEW && Namespaces.database(ns).equals(database)) {
                views.put(ns, info);
            }
        });
        return views;
    }

    /**
     * Whether writes to {@code namespace} record pre- and post-images: the collection was created or
     * modified with {@code changeStreamPreAndPostImages: {enabled: true}}
     * (https://www.mongodb.com/docs/manual/reference/command/collMod/#change-streams-with-document-pre--and-post-images).
     */
    public boolean recordsImages(String namespace) {
        Info info = byNamespace.get(namespace);
        return info != null && info.options().get("changeStreamPreAndPostImages") instanceof Document d
                && Boolean.TRUE.equals(d.get("enabled"));
    }

    /**
     * Where the oplog logs a write to {@code namespace}: MongoDB stores a time-series collection's data
     * in {@code system.buckets.<name>} (https://www.mongodb.com/docs/manual/core/timeseries/timeseries-bucketing/),
     * a system collection that database and deployment change streams do not report.
     */
    public String oplogNamespace(String namespace) {
        if (kind(namespace) != Kind.TIMESERIES) {
            return namespace;
        }
        return Namespaces.database(namespace) + ".system.buckets." + Namespaces.collection(namespace);
    }

    /** Names of the namespaces of {@code database} with an entry of {@code kind}. */
    public List<String> names(String database, Kind kind) {
        return byNamespace.entrySet().stream()
                .filter(e -> e.getValue().kind() == kind && Namespaces.database(e.getKey()).equals(database))
                .map(e -> Namespaces.collection(e.getKey())).sorted().toList();
    }
}
