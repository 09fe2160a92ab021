package dev.tideline.sink.check;

import dev.tideline.event.Namespace;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which namespaces the sink may write, whatever a record's header or envelope names. Pure.
 *
 * <p>Never: MongoDB's own databases {@code admin}, {@code config} and {@code local} (users, roles,
 * sharding metadata, the oplog; matched without regard to case, as MongoDB refuses database names that
 * differ only in case); {@code system.*} collections (views, profiles, users); Tideline's own
 * collections, whose names start with {@value #OWN_PREFIX} (the version sidecar, peer tombstones,
 * conflicts and status, health state, scan delete markers): a forged version entry, for instance,
 * would make every later change of a document "stale". Names MongoDB refuses
 * (https://www.mongodb.com/docs/manual/reference/limits/#naming-restrictions) are refused here, for
 * the one record, rather than failing a whole bulk write.
 *
 * <p>Optionally only the databases of an allow-list ({@code database.allow}).
 */
public final class DestinationPolicy {
    /** Prefix of every collection Tideline itself keeps in a database. */
    public static final String OWN_PREFIX = "_tideline";
    private static final Set<String> RESERVED_DATABASES = Set.of("admin", "config", "local");
    private static final String FORBIDDEN_IN_DATABASE = "/\\. \"$*<>:|?";
    private static final int MAX_DATABASE_BYTES = 63;
    private static final int MAX_NAMESPACE_BYTES = 255;

    private final Set<String> allowedDatabases;

    /** @param allowedDatabases the only databases that may be written; empty: any database not reserved */
    public DestinationPolicy(Collection<String> allowedDatabases) {
        this.allowedDatabases = Set.copyOf(allowedDatabases);
    }

    public static DestinationPolicy anyDatabase() {
        return new DestinationPolicy(Set.of());
    }

    /** @return why the sink refuses to write {@code destination}, or empty when it may */
    public Optional<String> problem(Namespace destination) {
        Optional<String> db = databaseProblem(destination.db());
        if (db.isPresent()) {
            return db;
        }
        if (!allowedDatabases.isEmpty() && !allowedDatabases.contains(destination.db())) {
            return Optional.of("database '" + destination.db() + "' is not in database.allow " + new TreeSet<>(allowedDatabases));
        }
        return collectionProblem(destination);
    }

    /** Why a database name cannot be a destination (reserved, or a name MongoDB refuses), or empty. */
    public static Optional<String> databaseProblem(String db) {
        if (RESERVED_DATABASES.contains(db.toLowerCase(Locale.ROOT))) {
            return Optional.of("database '" + db + "' is one of MongoDB's own (admin, config, local), which the sink never writes");
        }
        for (char c : db.toCharArray()) {
            if (FORBIDDEN_IN_DATABASE.indexOf(c) >= 0 || c == 0) {
                return Optional.of("database name '" + printable(db) + "' contains '" + printable(String.valueOf(c))
                        + "', which MongoDB does not allow in a database name");
            }
        }
        if (db.getBytes(StandardCharsets.UTF_8).length > MAX_DATABASE_BYTES) {
            return Optional.of("database name '" + db + "' is longer than MongoDB's " + MAX_DATABASE_BYTES + " bytes");
        }
        return Optional.empty();
    }

    private static Optional<String> collectionProblem(Namespace ns) {
        String coll = ns.coll();
        if (coll.startsWith("system.")) {
            return Optional.of("collection '" + coll + "' is a system collection, which the sink never writes");
        }
        if (coll.startsWith(OWN_PREFIX)) {
            return Optional.of("collection '" + coll + "' is one of Tideline's own (" + OWN_PREFIX + "*), which no record may write");
        }
        if (coll.indexOf('$') >= 0 || coll.indexOf('\0') >= 0) {
            return Optional.of("collection name '" + printable(coll) + "' contains '$' or a NUL character, which MongoDB "
                    + "does not allow in a collection name");
        }
        if (ns.fullName().getBytes(StandardCharsets.UTF_8).length > MAX_NAMESPACE_BYTES) {
            return Optional.of("namespace '" + ns + "' is longer than MongoDB's " + MAX_NAMESPACE_BYTES + " bytes");
        }
        return Optional.empty();
    }

    private static String printable(String s) {
        return s.replace("\0", "\\0");
    }
}
