package dev.tideline.source.config;

import dev.tideline.mongo.MongoClientFactory;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** How to reach the source MongoDB. */
public final class ConnectionSettings {
    public static final String GROUP = "Connection";
    public static final String MONGODB_URI = MongoClientFactory.URI_KEY;
    public static final String CONNECT_TIMEOUT_MS = "mongodb.connect.timeout.ms";

    private final String uri;
    private final int connectTimeoutMs;

    ConnectionSettings(AbstractConfig c) {
        this.uri = c.getPassword(MONGODB_URI).value();
        this.connectTimeoutMs = c.getInt(CONNECT_TIMEOUT_MS);
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(MONGODB_URI, Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH,
                "MongoDB connection string of the source, e.g. mongodb://user:pass@host1,host2/?replicaSet=rs0. "
                        + "TLS and authentication options go in the string and are passed to the driver as they are. "
                        + "Masked by the REST API and never logged.",
                GROUP, ++order, Width.LONG, "MongoDB connection string");
        def.define(CONNECT_TIMEOUT_MS, Type.INT, 10_000, ConfigDef.Range.between(500, 600_000), Importance.LOW,
                "How long to wait for the server when connecting and when validating the configuration, in milliseconds.",
                GROUP, ++order, Width.SHORT, "Connect timeout (ms)");
    }

    /** The connection string. Never log it: it may hold a password. */
    public String uri() {
        return uri;
    }

    public int connectTimeoutMs() {
        return connectTimeoutMs;
    }
}
