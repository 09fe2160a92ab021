package dev.tideline.sandbox;

import java.util.HashMap;
import java.util.Map;

/** A scheduled verify connector's config (docs/verify.md): one database against its copy, every {@code intervalMs}. */
public final class VerifyConnectorConfig {
    private VerifyConnectorConfig() {
    }

    public static Map<String, String> of(String sourceUri, String destinationUri, String database, String destinationDatabase,
                                         long intervalMs) {
        Map<String, String> config = new HashMap<>();
        config.put("connector.class", "dev.tideline.verify.connect.VerifyConnector");
        config.put("tasks.max", "1");
        config.put("verify.source.uri", sourceUri);
        config.put("verify.destination.uri", destinationUri);
        config.put("verify.databases", database);
        config.put("verify.destination.database", destinationDatabase);
        config.put("verify.interval.ms", Long.toString(intervalMs));
        config.put("verify.recheck.delay.ms", "1000");
        config.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        config.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        return config;
    }
}
