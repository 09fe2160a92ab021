package dev.tideline.mongo;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.types.Password;

/**
 * How a connector reaches its MongoDB: one fragment for the source and the sink, the same keys with the
 * same ranges. The URI is a PASSWORD: Connect masks it in REST answers and logs, and it is never logged here.
 */
public record MongoConnectionSettings(Password uri, int connectTimeoutMs) {
    public static final String URI = MongoClientFactory.URI_KEY;
    public static final String CONNECT_TIMEOUT_MS = "mongodb.connect.timeout.ms";

    /**
     * @param group the connector's group for these keys
     * @param role  what the MongoDB is to the connector ("source", "destination"), for the docs
     */
    public static void define(ConfigDef def, String group, String role) {
        int order = 0;
        def.define(URI, Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonNullValidator(), Importance.HIGH,
                "Connection string of the " + role + " MongoDB, e.g. mongodb://user:pass@host1,host2/?replicaSet=rs0. TLS and "
                        + "authentication options go in the string and are passed to the driver as they are. Masked by the REST "
                        + "API and never logged; prefer a config provider (${file:...}) for the credentials.",
                group, ++order, Width.LONG, "MongoDB connection string");
        def.define(CONNECT_TIMEOUT_MS, Type.INT, 10_000, ConfigDef.Range.between(100, 600_000), Importance.LOW,
                "How long connecting to, or selecting, a server may take before the attempt fails and is retried with "
                        + "back-off, in milliseconds; also how long validating the configuration waits for the server.",
                group, ++order, Width.SHORT, "Connect timeout (ms)");
    }

    public static MongoConnectionSettings from(AbstractConfig c) {
        return new MongoConnectionSettings(c.getPassword(URI), c.getInt(CONNECT_TIMEOUT_MS));
    }
}
