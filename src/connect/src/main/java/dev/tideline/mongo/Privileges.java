package dev.tideline.mongo;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Which of the actions a connector needs on a database the connected user lacks, read from the reply
 * of {@code connectionStatus} with {@code showPrivileges: true}
 * (https://www.mongodb.com/docs/manual/reference/command/connectionStatus/). Pure.
 *
 * <p>A privilege's resource grants a database-level need when it is {@code anyResource}, or names
 * that database or every database ({@code db: ""}). A grant on some collections of the database
 * counts too: this check must never refuse a config that works, so it errs towards "enough" and
 * reports only actions the user has on no collection of the database at all. Without
 * authentication (no authenticated user) every action is allowed.
 */
public final class Privileges {
    private Privileges() {
    }

    public static List<String> missing(BsonDocument connectionStatus, String db, List<String> actions) {
        BsonDocument authInfo = connectionStatus.getDocument("authInfo", new BsonDocument());
        BsonArray users = authInfo.getArray("authenticatedUsers", new BsonArray());
        if (users.isEmpty()) {
            return List.of();
        }
        Set<String> granted = new HashSet<>();
        for (BsonValue p : authInfo.getArray("authenticatedUserPrivileges", new BsonArray())) {
            if (!p.isDocument()) {
                continue;
            }
            BsonDocument resource = p.asDocument().getDocument("resource", new BsonDocument());
            if (covers(resource, db)) {
                for (BsonValue a : p.asDocument().getArray("actions", new BsonArray())) {
                    if (a.isString()) {
                        granted.add(a.asString().getValue());
                    }
                }
            }
        }
        List<String> missing = new ArrayList<>();
        for (String a : actions) {
            if (!granted.contains(a)) {
                missing.add(a);
            }
        }
        return missing;
    }

    private static boolean covers(BsonDocument resource, String db) {
        if (resource.getBoolean("anyResource", org.bson.BsonBoolean.FALSE).getValue()) {
            return true;
        }
        BsonValue rdb = resource.get("db");
        return rdb != null && rdb.isString() && (rdb.asString().getValue().isEmpty() || rdb.asString().getValue().equals(db));
    }
}
