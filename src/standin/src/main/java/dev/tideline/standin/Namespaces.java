package dev.tideline.standin;

import java.util.Set;

/** Namespace names as MongoDB reads them: {@code db.coll}, where only the first dot separates. */
public final class Namespaces {
    /**
     * The databases a deployment-level change stream never reports
     * (https://www.mongodb.com/docs/manual/changeStreams/#watch-a-collection--database--or-deployment).
     */
    public static final Set<String> INTERNAL_DATABASES = Set.of("admin", "config", "local");

    private Namespaces() {
    }

    public static String database(String namespace) {
        int dot = namespace.indexOf('.');
        return dot < 0 ? namespace : namespace.substring(0, dot);
    }

    public static String collection(String namespace) {
        int dot = namespace.indexOf('.');
        return dot < 0 ? "" : namespace.substring(dot + 1);
    }

    /** {@code system.*} collections (system.views, system.buckets.*, ...): never seen by database or deployment streams. */
    public static boolean isSystem(String collection) {
        return collection.startsWith("system.");
    }
}
