package dev.tideline.event;

import java.util.Objects;

/** A MongoDB collection, {@code db.coll}. The collection name may itself contain dots. */
public record Namespace(String db, String coll) {
    public Namespace {
        Objects.requireNonNull(db, "db");
        Objects.requireNonNull(coll, "coll");
        if (db.isEmpty() || coll.isEmpty()) {
            throw new IllegalArgumentException("namespace needs a database and a collection, got '" + db + "." + coll + "'");
        }
        if (db.contains(".")) {
            throw new IllegalArgumentException("database name '" + db + "' must not contain a dot");
        }
    }

    /** Parses {@code db.coll}: the database is up to the first dot, the rest is the collection. */
    public static Namespace parse(String fullName) {
        int dot = fullName == null ? -1 : fullName.indexOf('.');
        if (dot <= 0 || dot == fullName.length() - 1) {
            throw new IllegalArgumentException("'" + fullName + "' is not a namespace: expected <database>.<collection>");
        }
        return new Namespace(fullName.substring(0, dot), fullName.substring(dot + 1));
    }

    public String fullName() {
        return db + "." + coll;
    }

    @Override
    public String toString() {
        return fullName();
    }
}
