package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.config.Validators;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoClients;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.config.CaptureSettings;
import dev.tideline.source.config.ConnectionSettings;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;

/** Checks that need more than one key or the server, reported on the key at fault. */
final class SourceValidation {
    private SourceValidation() {
    }

    static void check(Map<String, String> props, Config result) {
        checkFilters(props, result);
        checkReachable(props, result);
    }

    private static void checkFilters(Map<String, String> props, Config result) {
        ConfigValue filters = value(result, CaptureSettings.FILTERS).orElse(null);
        if (filters == null || !filters.errorMessages().isEmpty()) {
            return;
        }
        BsonDocument parsed;
        try {
            parsed = Validators.parseJsonObject(CaptureSettings.FILTERS, props.get(CaptureSettings.FILTERS));
        } catch (ConfigException e) {
            filters.addErrorMessage(e.getMessage());
            return;
        }
        for (Map.Entry<String, BsonValue> e : parsed.entrySet()) {
            if (!e.getValue().isDocument()) {
                filters.addErrorMessage("filter of \"" + e.getKey() + "\" must be a query document, e.g. {\"status\": \"open\"}");
                continue;
            }
            String problem = FilterRewriter.problem(e.getValue().asDocument());
            if (problem != null) {
                filters.addErrorMessage("filter of \"" + e.getKey() + "\": " + problem);
            }
        }
    }

    private static void checkReachable(Map<String, String> props, Config result) {
        ConfigValue uri = value(result, ConnectionSettings.MONGODB_URI).orElse(null);
        if (uri == null || !uri.errorMessages().isEmpty()) {
            return;
        }
        String raw = props.get(ConnectionSettings.MONGODB_URI);
        int timeout = 5_000;
        try {
            timeout = Integer.parseInt(props.getOrDefault(ConnectionSettings.CONNECT_TIMEOUT_MS, "5000").trim());
        } catch (NumberFormatException ignored) {
            // reported on its own key by the ConfigDef
        }
        try (MongoClient client = MongoClients.create(ConnectionSettings.MONGODB_URI, raw, Math.min(timeout, 10_000), "tideline-validate")) {
            client.getDatabase("admin").runCommand(new BsonDocument("ping", new BsonInt32(1)));
        } catch (ConfigException e) {
            uri.addErrorMessage(e.getMessage());
        } catch (RuntimeException e) {
            ErrorClass kind = MongoErrors.classify(e);
            String message = MongoClients.redact(e.getMessage(), raw);
            uri.addErrorMessage(kind == ErrorClass.AUTH
                    ? "authentication failed: check the user, password and authSource in the connection string (" + message + ")"
                    : "cannot reach MongoDB within " + timeout + " ms: check hosts, ports, TLS options and network access ("
                    + e.getClass().getSimpleName() + ": " + message + ")");
        }
    }

    static Optional<ConfigValue> value(Config config, String name) {
        return config.configValues().stream().filter(v -> v.name().equals(name)).findFirst();
    }
}
