package dev.tideline.mongo;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;

/** Checks, for {@code validate()}, that a MongoDB answers a ping (and grants what the connector needs). Messages never carry the password. */
public final class ServerProbe {
    /** validate() must answer quickly: never wait longer than this for the server. */
    public static final int MAX_PROBE_MS = 5_000;

    private ServerProbe() {
    }

    /**
     * @param role how the messages name the server: "source" or "destination"
     * @return what is wrong, with what to do about it; empty when the server answered
     */
    public static Optional<String> problem(String uri, int connectTimeoutMs, String role) {
        return problem(uri, connectTimeoutMs, role, Map.of());
    }

    /**
     * Also checks the connected user's privileges: {@code needs} maps a database ("": every database) to the
     * actions the connector performs there, as {@code connectionStatus} reports them
     * (https://www.mongodb.com/docs/manual/reference/command/connectionStatus/); a server without access
     * control reports no user, and nothing is checked.
     */
    public static Optional<String> problem(String uri, int connectTimeoutMs, String role, Map<String, List<String>> needs) {
        String hosts;
        try {
            hosts = String.join(",", MongoClientFactory.parse(uri).getHosts());
        } catch (ConfigException e) {
            return Optional.of(e.getMessage());
        }
        int timeout = Math.min(connectTimeoutMs, MAX_PROBE_MS);
        // the read timeout too: a black-holed server accepts the connection and never answers the ping
        MongoClient client = MongoClientFactory.create(uri, "tideline-" + role + "-validate", timeout, timeout);
        try {
            client.getDatabase("admin").runCommand(new BsonDocument("ping", new BsonInt32(1)));
            return needs.isEmpty() ? Optional.empty() : privilegeProblem(client, hosts, role, needs);
        } catch (MongoException e) {
            String why = MongoClientFactory.redact(e.getClass().getSimpleName() + ": " + e.getMessage(), uri);
            if (MongoErrors.classify(e) == ErrorClass.AUTH) {
                return Optional.of("the " + role + " at " + hosts + " refused the credentials (" + why
                        + "): check the user, password and authSource in the connection string, and the user's roles");
            }
            return Optional.of("cannot reach the " + role + " at " + hosts + " within " + timeout + " ms (" + why
                    + "): check the host and port, TLS options, that the server is up, and that this worker can reach it");
        } finally {
            MongoClientFactory.closeWithin(client, timeout);
        }
    }

    private static Optional<String> privilegeProblem(MongoClient client, String hosts, String role, Map<String, List<String>> needs) {
        BsonDocument status;
        try {
            status = client.getDatabase("admin").runCommand(new BsonDocument("connectionStatus", new BsonInt32(1))
                    .append("showPrivileges", BsonBoolean.TRUE), BsonDocument.class);
        } catch (MongoCommandException e) {
            return Optional.of("the " + role + " at " + hosts + " did not report the user's privileges (connectionStatus: "
                    + e.getErrorCode() + " " + e.getErrorCodeName() + "): check the user's roles, and that the server is MongoDB "
                    + "(every MongoDB server answers connectionStatus)");
        }
        List<String> problems = new ArrayList<>();
        needs.forEach((db, actions) -> {
            List<String> missing = Privileges.missing(status, db, actions);
            if (!missing.isEmpty()) {
                problems.add(missing + (db.isEmpty() ? " on every database ({db: \"\", collection: \"\"}, e.g. readAnyDatabase)"
                        : " on database " + db));
            }
        });
        return problems.isEmpty() ? Optional.empty() : Optional.of("the user connected to the " + role + " at " + hosts
                + " lacks " + String.join("; ", problems) + ": grant them (e.g. a role with these actions) or use another user");
    }
}
