package dev.tideline.mongo;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonDocument;
import org.bson.BsonInt32;

/** Checks, for {@code validate()}, that a MongoDB answers a ping. Messages never carry the password. */
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
            return Optional.empty();
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
}
