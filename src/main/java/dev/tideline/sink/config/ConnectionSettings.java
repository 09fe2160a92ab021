package dev.tideline.sink.config;

import dev.tideline.mongo.MongoClientFactory;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.types.Password;

/** Where the destination is. The URI is a PASSWORD: Connect masks it in REST answers and logs. */
public record ConnectionSettings(Password uri, int connectTimeoutMs) {
    public static final String GROUP = "Destination";
    public static final String URI = MongoClientFactory.URI_KEY;
    public static final String CONNECT_TIMEOUT_MS = "mongodb.connect.timeout.ms";

    static void define(ConfigDef def) {
        int order = 0;
        def.define(URI, Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonNullValidator(), Importance.HIGH,
                "Connection string of the destination MongoDB, e.g. mongodb://user:pass@host:27017/?replicaSet=rs0. "
                        + "Masked in the REST API and logs; prefer a config provider (${file:...}) for the credentials.",
                GROUP, ++order, Width.LONG, "Destination URI");
        def.define(CONNECT_TIMEOUT_MS, Type.INT, 10_000, ConfigDef.Range.between(100, 300_000), Importance.LOW,
                "How long connecting to, or selecting, a destination server may take before the attempt fails and "
                        + "is retried with backoff. Also bounds how long a write waits for an unreachable server.",
                GROUP, ++order, Width.SHORT, "Connect timeout (ms)");
    }

    static ConnectionSettings from(AbstractConfig c) {
        return new ConnectionSettings(c.getPassword(URI), c.getInt(CONNECT_TIMEOUT_MS));
    }
}
