package dev.tideline.sink;

import dev.tideline.mongo.MongoConnectionSettings;
import dev.tideline.TidelineVersion;
import dev.tideline.health.TaskIdentity;
import dev.tideline.mongo.ServerProbe;
import dev.tideline.sign.RecordSigningSettings;
import dev.tideline.sink.config.PeerSinkSettings;
import dev.tideline.sink.config.RecordSafetySettings;
import dev.tideline.sink.config.TopicNamespaceMap;
import dev.tideline.sink.config.RetrySettings;
import dev.tideline.sink.config.RoutingSettings;
import dev.tideline.sink.config.SinkConfig;
import dev.tideline.sink.front.PeerMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * Applies Tideline change topics (or plain document topics) onto one destination MongoDB. For
 * several destinations, run one connector per destination on the same topics, each with its own
 * {@code collection.include}/{@code collection.exclude}.
 */
public class TidelineSinkConnector extends SinkConnector {
    private Map<String, String> props;

    @Override
    public String version() {
        return TidelineVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        new SinkConfig(props); // fail the connector, not each task, on a bad config
        this.props = Map.copyOf(props);
    }

    /** Called after {@link #start}: peer mode ({@code peer.cluster.id} set) has its own task ({@link PeerMode}). */
    @Override
    public Class<? extends Task> taskClass() {
        boolean peer = props != null && !props.getOrDefault(PeerSinkSettings.CLUSTER_ID, "").isBlank();
        return peer ? PeerMode.installed().taskClass() : TidelineSinkTask.class;
    }

    /** Every task gets the same config (including errors.tolerance): Connect spreads the partitions. */
    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            configs.add(TaskIdentity.withIndex(new HashMap<>(props), i));
        }
        return configs;
    }

    @Override
    public void stop() {
        // nothing held: the tasks own the clients
    }

    @Override
    public ConfigDef config() {
        return SinkConfig.configDef();
    }

    /** Per-key checks of the ConfigDef, then what needs the settings together: backoff order, a reachable destination. */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        Map<String, ConfigValue> values = new HashMap<>();
        config.configValues().forEach(v -> values.put(v.name(), v));
        PeerSinkSettings.check(connectorConfigs, values);

        ConfigValue initial = values.get(RetrySettings.BACKOFF_INITIAL_MS);
        ConfigValue max = values.get(RetrySettings.BACKOFF_MAX_MS);
        if (initial.errorMessages().isEmpty() && max.errorMessages().isEmpty()
                && initial.value() != null && max.value() != null && (Long) max.value() < (Long) initial.value()) {
            max.addErrorMessage(RetrySettings.BACKOFF_MAX_MS + " (" + max.value() + ") must be at least "
                    + RetrySettings.BACKOFF_INITIAL_MS + " (" + initial.value() + ")");
        }

        checkAllowList(values);
        String headers = RecordSigningSettings.headerConverterProblem(connectorConfigs);
        if (headers != null) {
            values.get(RecordSigningSettings.KEY).addErrorMessage(headers);
        }

        ConfigValue uri = values.get(MongoConnectionSettings.URI);
        ConfigValue timeout = values.get(MongoConnectionSettings.CONNECT_TIMEOUT_MS);
        String rawUri = connectorConfigs.get(MongoConnectionSettings.URI);
        if (uri.errorMessages().isEmpty() && timeout.errorMessages().isEmpty() && rawUri != null && !rawUri.isBlank()) {
            String db = connectorConfigs.get(RoutingSettings.DATABASE);
            Map<String, List<String>> needs = db == null || db.isBlank() ? Map.of()
                    : Map.of(db.trim(), List.of("find", "insert", "update", "remove")); // documents and the version sidecar
            Optional<String> problem = ServerProbe.problem(rawUri, (Integer) timeout.value(), "destination", needs);
            problem.ifPresent(uri::addErrorMessage);
        }
        return config;
    }

    /** A destination database the settings name but database.allow leaves out would refuse every record routed there. */
    private static void checkAllowList(Map<String, ConfigValue> values) {
        ConfigValue allow = values.get(RecordSafetySettings.DATABASE_ALLOW);
        ConfigValue database = values.get(RoutingSettings.DATABASE);
        ConfigValue map = values.get(RoutingSettings.TOPIC_NAMESPACE_MAP);
        if (!allow.errorMessages().isEmpty() || !(allow.value() instanceof List<?> list) || list.isEmpty()) {
            return;
        }
        List<String> allowed = list.stream().map(o -> String.valueOf(o).trim()).toList();
        List<String> named = new ArrayList<>();
        if (database.errorMessages().isEmpty() && database.value() instanceof String db && !db.isBlank()) {
            named.add(db.trim());
        }
        if (map.errorMessages().isEmpty() && map.value() instanceof String json) {
            TopicNamespaceMap.parse(json).databases().forEach(named::add);
        }
        named.stream().filter(db -> !allowed.contains(db)).distinct().forEach(db -> allow.addErrorMessage(
                "database '" + db + "' (named by " + RoutingSettings.DATABASE + " or " + RoutingSettings.TOPIC_NAMESPACE_MAP
                        + ") is not in " + RecordSafetySettings.DATABASE_ALLOW + " " + allowed + ": every record routed there "
                        + "would be refused. Add it, or route elsewhere"));
    }
}
