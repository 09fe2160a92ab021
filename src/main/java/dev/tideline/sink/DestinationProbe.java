package dev.tideline.sink;

import com.mongodb.ConnectionString;
import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.mongo.MongoErrors;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonInt32;

/** Checks, for {@code validate}, that the destination answers a ping. Messages never carry the password. */
final class DestinationProbe {
    /** validate() must answer quickly: never wait longer than this for the destination. */
    static final int MAX_PROBE_MS = 5_000;

    private DestinationProbe() {
    }

    /** @return what is wrong, with what to do about it; empty when the destination answered */
    static Optional<String> problem(String uri, int connectTimeoutMs) {
        ConnectionString cs;
        try {
            cs = new ConnectionString(uri);
        } catch (IllegalArgumentException e) {
            return Optional.of("not a valid MongoDB connection string (" + redact(e.getMessage(), uri)
                    + "): expected mongodb://[user:password@]host[:port][/?options] or mongodb+srv://...");
        }
        int timeout = Math.min(connectTimeoutMs, MAX_PROBE_MS);
        String hosts = String.join(",", cs.getHosts());
        try (MongoClient client = MongoClientFactory.create(uri, "tideline-sink-validate", timeout)) {
            client.getDatabase("admin").runCommand(new BsonDocument("ping", new BsonInt32(1)));
            return Optional.empty();
        } catch (MongoException e) {
            String why = redact(e.getClass().getSimpleName() + ": " + e.getMessage(), uri, cs);
            if (MongoErrors.classify(e) == ErrorClass.AUTH) {
                return Optional.of("the destination at " + hosts + " refused the credentials (" + why
                        + "): check the user, password and authSource in the connection string");
            }
            return Optional.of("cannot reach the destination at " + hosts + " within " + timeout + " ms (" + why
                    + "): check the host and port, that the server is up, and that this worker can reach it");
        }
    }

    private static String redact(String message, String uri, ConnectionString cs) {
        String m = redact(message, uri);
        char[] password = cs.getPassword();
        return password == null || password.length == 0 ? m : m.replace(new String(password), "****");
    }

    private static String redact(String message, String uri) {
        return message == null ? "" : message.replace(uri, "<mongodb.uri>");
    }
}
