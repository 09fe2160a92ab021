package dev.tideline.mongo;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigException;

/**
 * Builds the driver clients every connector uses, with bounded connect and server-selection times
 * so a dead server surfaces as an error instead of a hang. Connection strings may carry passwords:
 * nothing here ever puts one in a message.
 */
public final class MongoClientFactory {
    /** The config key both connectors hold their connection string in; named in errors, never echoed. */
    public static final String URI_KEY = "mongodb.uri";
    /**
     * How long a read may wait on a socket that answers nothing, unless the connection string sets
     * {@code socketTimeoutMS}. The driver's default is forever: on a black-holed route (a dead
     * firewall state, a cut link) a change stream or a bulk write then waits for good and nothing
     * ever retries. Long enough for any batch a healthy server is working on.
     */
    public static final int DEFAULT_READ_TIMEOUT_MS = 60_000;

    private MongoClientFactory() {
    }

    /**
     * @param uri       the connection string (may carry credentials: never log it)
     * @param appName   shows up in the server's logs and currentOp, unless the URI sets one
     * @param timeoutMs connect timeout and server selection timeout: how long an unreachable
     *                  server may block a call before it fails (and is classified as retriable)
     * @throws ConfigException on {@link #URI_KEY} when the string is not a connection string
     */
    public static MongoClient create(String uri, String appName, int timeoutMs) {
        return create(uri, appName, timeoutMs, DEFAULT_READ_TIMEOUT_MS);
    }

    /**
     * @param readTimeoutMs how long one read may wait for an answer ({@link #DEFAULT_READ_TIMEOUT_MS}
     *                      unless a caller waits longer on purpose, e.g. a change stream's await
     *                      time); {@code socketTimeoutMS} in the connection string wins
     */
    public static MongoClient create(String uri, String appName, int timeoutMs, int readTimeoutMs) {
        return MongoClients.create(settings(uri, appName, timeoutMs, readTimeoutMs));
    }

    /** As above, telling {@code pool} about every connection the client opens and closes (for metrics). */
    public static MongoClient create(String uri, String appName, int timeoutMs, int readTimeoutMs,
                                     com.mongodb.event.ConnectionPoolListener pool) {
        MongoClientSettings base = settings(uri, appName, timeoutMs, readTimeoutMs);
        return MongoClients.create(MongoClientSettings.builder(base)
                .applyToConnectionPoolSettings(p -> p.addConnectionPoolListener(pool)).build());
    }

    /**
     * The driver settings {@link #create} uses: everything the connection string says (TLS,
     * authentication, replica set, read preference...) passed through as is, plus our timeouts.
     */
    public static MongoClientSettings settings(String uri, String appName, int timeoutMs, int readTimeoutMs) {
        ConnectionString cs = parse(uri);
        int readTimeout = cs.getSocketTimeout() != null ? cs.getSocketTimeout() : readTimeoutMs;
        MongoClientSettings.Builder settings = MongoClientSettings.builder()
                .applyConnectionString(cs)
                .applyToSocketSettings(s -> s.connectTimeout(timeoutMs, TimeUnit.MILLISECONDS)
                        .readTimeout(readTimeout, TimeUnit.MILLISECONDS))
                .applyToClusterSettings(c -> c.serverSelectionTimeout(timeoutMs, TimeUnit.MILLISECONDS));
        if (cs.getApplicationName() == null) {
            settings.applicationName(appName);
        }
        return settings.build();
    }

    /**
     * Closes a client, waiting at most {@code waitMs}. Closing says goodbye to the server (it ends
     * the client's sessions with a command): to a black-holed server that goodbye waits a full read
     * timeout, and a stop, a rebalance or a reconfiguration must not wait with it. Past the wait the
     * close finishes on its own daemon thread.
     *
     * @return whether the close completed within {@code waitMs}
     */
    public static boolean closeWithin(MongoClient client, long waitMs) {
        Thread closer = new Thread(client::close, "tideline-client-close");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(waitMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return !closer.isAlive();
    }

    /** @throws ConfigException naming {@link #URI_KEY}, without echoing the string */
    public static ConnectionString parse(String uri) {
        if (uri == null || uri.isBlank()) {
            throw new ConfigException(URI_KEY, "[hidden]", "a MongoDB connection string is required, e.g. mongodb://host:27017");
        }
        try {
            return new ConnectionString(uri);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(URI_KEY, "[hidden]", "not a valid MongoDB connection string (" + redact(e.getMessage(), uri)
                    + "): expected mongodb://[user:password@]host[:port][/?options] or mongodb+srv://...");
        }
    }

    /** The hosts of a connection string, for messages: never the credentials. */
    public static String hostsOf(String uri) {
        try {
            return String.join(",", new ConnectionString(uri).getHosts());
        } catch (IllegalArgumentException e) {
            return "<unparseable connection string>";
        }
    }

    /** A driver message without the connection string, its password, or any {@code user:password@} in it. */
    public static String redact(String message, String uri) {
        if (message == null) {
            return "";
        }
        String m = uri == null || uri.isEmpty() ? message : message.replace(uri, "<" + URI_KEY + ">");
        try {
            char[] password = uri == null ? null : new ConnectionString(uri).getPassword();
            if (password != null && password.length > 0) {
                m = m.replace(new String(password), "****");
            }
        } catch (IllegalArgumentException unparseable) {
            // nothing more to take out than the string itself and the pattern below
        }
        return m.replaceAll("(mongodb(\\+srv)?://)[^@/\\s]+@", "$1***@");
    }
}
