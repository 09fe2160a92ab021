package dev.tideline.verify.connect;

import dev.tideline.ConfiguredSourceConnector;
import dev.tideline.health.TaskIdentity;
import dev.tideline.mongo.ServerProbe;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;

/**
 * Compares a destination (or a peer cluster) with its source on a schedule, inside a Connect worker:
 * one task, which reports each run on a topic and its outcome as health (JMX). The same comparison as
 * {@code ./verify}, which runs once.
 */
public class VerifyConnector extends ConfiguredSourceConnector {
    @Override
    protected void check(Map<String, String> props) {
        new VerifyConfig(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return VerifyTask.class;
    }

    /** One task whatever tasks.max says: a run compares everything, and two would run twice. */
    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return List.of(TaskIdentity.withIndex(taskProps(), 0));
    }

    @Override
    public ConfigDef config() {
        return VerifyConfig.CONFIG_DEF;
    }

    /** Per-key checks, then both servers must answer (and grant reads where the databases are named). */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        Map<String, ConfigValue> values = new HashMap<>();
        config.configValues().forEach(v -> values.put(v.name(), v));
        ConfigValue timeout = values.get(VerifyConfig.CONNECT_TIMEOUT_MS);
        ConfigValue order = values.get(VerifyConfig.IGNORE_FIELD_ORDER);
        ConfigValue hashing = values.get(VerifyConfig.HASHING);
        if (Boolean.TRUE.equals(order.value()) && "server".equalsIgnoreCase(String.valueOf(hashing.value()))) {
            hashing.addErrorMessage("server hashing compares fields in order: use auto or client with "
                    + VerifyConfig.IGNORE_FIELD_ORDER + "=true");
        }
        if (!timeout.errorMessages().isEmpty() || timeout.value() == null) {
            return config;
        }
        String dbs = connectorConfigs.getOrDefault(VerifyConfig.DATABASES, "");
        Map<String, List<String>> reads = new HashMap<>();
        for (String db : dbs.split(",")) {
            if (!db.isBlank()) {
                reads.put(db.trim(), List.of("find", "listCollections"));
            }
        }
        probe(connectorConfigs, values, VerifyConfig.SOURCE_URI, "source", (Integer) timeout.value(), reads);
        String destinationDb = connectorConfigs.getOrDefault(VerifyConfig.DESTINATION_DATABASE, "").trim();
        probe(connectorConfigs, values, VerifyConfig.DESTINATION_URI, "destination", (Integer) timeout.value(),
                destinationDb.isEmpty() ? reads : Map.of(destinationDb, List.of("find", "listCollections")));
        return config;
    }

    private static void probe(Map<String, String> configs, Map<String, ConfigValue> values, String key, String role, int timeoutMs,
                              Map<String, List<String>> needs) {
        ConfigValue value = values.get(key);
        String uri = configs.get(key);
        if (value.errorMessages().isEmpty() && uri != null && !uri.isBlank()) {
            Optional<String> problem = ServerProbe.problem(uri, timeoutMs, role, needs);
            problem.ifPresent(value::addErrorMessage);
        }
    }
}
