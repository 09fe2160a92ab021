package dev.tideline.source;

import dev.tideline.source.config.PeerSourceSettings;
import dev.tideline.mongo.MongoConnectionSettings;
import dev.tideline.config.Validators;
import dev.tideline.mongo.ServerProbe;
import dev.tideline.source.config.CaptureSettings;
import dev.tideline.source.config.MarkerPartitions;
import dev.tideline.source.config.SelectionSettings;
import dev.tideline.source.stream.FilterRewriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** Checks that need more than one key or the server, reported on the key at fault. */
final class SourceValidation {
    private static final Pattern LITERAL_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    private SourceValidation() {
    }

    static void check(Map<String, String> props, Config result) {
        dev.tideline.source.config.PeerSourceSettings.check(props, result);
        checkFilters(props, result);
        checkMarkerPartitions(props, result);
        checkReachable(props, result);
    }

    /** The copy markers must reach every partition of the change topics: refuse what could silently disagree. */
    private static void checkMarkerPartitions(Map<String, String> props, Config result) {
        ConfigValue markers = value(result, CaptureSettings.RESNAPSHOT_MARKER_PARTITIONS).orElse(null);
        if (markers == null || !markers.errorMessages().isEmpty()) {
            return;
        }
        Integer explicit = markers.value() instanceof Integer i ? i : null;
        MarkerPartitions.of(explicit, props).problem().ifPresent(markers::addErrorMessage);
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
        ConfigValue uri = value(result, MongoConnectionSettings.URI).orElse(null);
        ConfigValue timeout = value(result, MongoConnectionSettings.CONNECT_TIMEOUT_MS).orElse(null);
        String raw = props.get(MongoConnectionSettings.URI);
        if (uri == null || timeout == null || !uri.errorMessages().isEmpty() || !timeout.errorMessages().isEmpty()
                || raw == null || raw.isBlank()) {
            return; // already reported on its key by the ConfigDef
        }
        ServerProbe.problem(raw, (Integer) timeout.value(), "source", privilegeNeeds(props)).ifPresent(uri::addErrorMessage);
    }

    /**
     * What the source does on each database it names literally in database.include: list and read
     * collections, and open change streams (one per database: changeStream and find on the database)
     * unless it only scans. Regex entries are not checked here. With change.stream.scope=deployment, the
     * one stream needs changeStream and find on every database: under the key "" (resource {db: ""}).
     */
    static Map<String, List<String>> privilegeNeeds(Map<String, String> props) {
        String include = props.getOrDefault(SelectionSettings.DATABASE_INCLUDE, "");
        boolean scanOnly = "scan".equalsIgnoreCase(props.getOrDefault(CaptureSettings.MODE, "auto").trim());
        List<String> actions = scanOnly ? List.of("find", "listCollections") : List.of("find", "listCollections", "changeStream");
        Map<String, List<String>> needs = new LinkedHashMap<>();
        for (String db : include.split(",")) {
            if (LITERAL_NAME.matcher(db.trim()).matches()) {
                needs.put(db.trim(), actions);
            }
        }
        boolean deployment = "deployment".equalsIgnoreCase(props.getOrDefault(CaptureSettings.STREAM_SCOPE, "database").trim());
        if (!scanOnly && deployment) {
            needs.put("", List.of("find", "changeStream"));
        }
        return needs;
    }

    static Optional<ConfigValue> value(Config config, String name) {
        return config.configValues().stream().filter(v -> v.name().equals(name)).findFirst();
    }
}
