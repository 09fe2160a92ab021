package dev.tideline.mongo;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.ConfigException;

/** Builds driver clients the same way for every connector. */
public final class MongoClients {
    private MongoClients() {
    }

    /**
     * A client for the connection string, with the connect and server-selection timeouts bounded so a
     * dead server surfaces as an error instead of a hang.
     *
     * @param configKey the config key holding the string, named in errors (the string itself never is)
     */
    public static MongoClient create(String configKey, String uri, int connectTimeoutMs, String appName) {
        ConnectionString cs = parse(configKey, uri);
        MongoClientSettings settings = MongoClientSettings.builder()
                .applyConnectionString(cs)
                .applicationName(cs.getApplicationName() != null ? cs.getApplicationName() : appName)
                .applyToClusterSettings(b -> b.serverSelectionTimeout(connectTimeoutMs, TimeUnit.MILLISECONDS))
                .applyToSocketSettings(b -> b.connectTimeout(connectTimeoutMs, TimeUnit.MILLISECONDS))
                .build();
        return com.mongodb.client.MongoClients.create(settings);
    }

    /** @throws ConfigException naming the key, without echoing the string (it may hold a password) */
    public static ConnectionString parse(String configKey, String uri) {
        if (uri == null || uri.isBlank()) {
            throw new ConfigException(configKey, "[hidden]", "a MongoDB connection string is required, e.g. mongodb://host:27017");
        }
        try {
            return new ConnectionString(uri);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(configKey, "[hidden]", "not a valid MongoDB connection string: it must start with "
                    + "mongodb:// or mongodb+srv:// and list at least one host (" + redact(e.getMessage(), uri) + ")");
        }
    }

    /** Removes the connection string (and any password in it) from a driver message. */
    public static String redact(String message, String uri) {
        if (message == null) {
            return "";
        }
        String m = uri == null || uri.isEmpty() ? message : message.replace(uri, "[connection string]");
        return m.replaceAll("(mongodb(\\+srv)?://)[^@/\\s]+@", "$1***@");
    }
}
