package dev.tideline.mongo;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import java.util.concurrent.TimeUnit;

/** Builds the driver client the connectors use: one per task, with bounded connect and selection times. */
public final class MongoClientFactory {
    private MongoClientFactory() {
    }

    /**
     * @param uri         the connection string (may carry credentials: never log it)
     * @param appName     shows up in the server's logs and currentOp, unless the URI sets one
     * @param timeoutMs   connect timeout and server selection timeout: how long an unreachable
     *                    server may block a call before it fails (and is classified as retriable)
     */
    public static MongoClient create(String uri, String appName, int timeoutMs) {
        ConnectionString cs = new ConnectionString(uri);
        MongoClientSettings.Builder settings = MongoClientSettings.builder()
                .applyConnectionString(cs)
                .applyToSocketSettings(s -> s.connectTimeout(timeoutMs, TimeUnit.MILLISECONDS))
                .applyToClusterSettings(c -> c.serverSelectionTimeout(timeoutMs, TimeUnit.MILLISECONDS));
        if (cs.getApplicationName() == null) {
            settings.applicationName(appName);
        }
        return MongoClients.create(settings.build());
    }

    /** The hosts of a connection string, for messages: never the credentials. */
    public static String hostsOf(String uri) {
        try {
            return String.join(",", new ConnectionString(uri).getHosts());
        } catch (IllegalArgumentException e) {
            return "<unparseable connection string>";
        }
    }
}
