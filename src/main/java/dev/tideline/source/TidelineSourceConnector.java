package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.TidelineVersion;
import dev.tideline.event.Namespace;
import dev.tideline.health.TaskIdentity;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.source.config.SourceConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * MongoDB change-data source: one topic per collection, collections spread over tasks, new
 * collections picked up by reconfiguration.
 */
public class TidelineSourceConnector extends SourceConnector {
    private Map<String, String> props;
    private MongoClient client;
    private CollectionMonitor monitor;

    @Override
    public String version() {
        return TidelineVersion.get();
    }

    /**
     * Never fails only because the source is unreachable (a worker restart during a MongoDB outage must
     * not leave the connector FAILED): the collection set is then listed with back-off in the background,
     * and tasks already configured keep retrying on their own. A new configuration is still checked for
     * reachability by {@link #validate}.
     */
    @Override
    public void start(Map<String, String> props) {
        SourceConfig config = new SourceConfig(props);
        MongoClient c = MongoClientFactory.create(config.connection().uri(), "tideline-source-connector", config.connection().connectTimeoutMs());
        this.client = c;
        this.props = Map.copyOf(props);
        try {
            monitor = new CollectionMonitor(c, config.selection(), MongoClientFactory.hostsOf(config.connection().uri()),
                    () -> context.requestTaskReconfiguration());
            monitor.start();
        } catch (RuntimeException e) {
            stop();
            throw e;
        }
    }

    @Override
    public Class<? extends Task> taskClass() {
        return TidelineSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>();
        // Connect retries a failed taskConfigs() with back-off and keeps the tasks it has meanwhile
        List<Namespace> collections = monitor.current().orElseThrow(() -> new RetriableException(
                "The source's collections are not known yet: " + monitor.lastFailure() + ". The connector retries "
                        + "listing them with back-off; check that MongoDB is up and reachable from the worker."));
        for (List<Namespace> group : TaskAssigner.assign(collections, maxTasks)) {
            Map<String, String> task = new HashMap<>(props);
            task.put(TaskCollections.KEY, TaskCollections.encode(group));
            configs.add(TaskIdentity.withIndex(task, configs.size()));
        }
        return configs;
    }

    @Override
    public void stop() {
        if (monitor != null) {
            monitor.close();
            monitor = null;
        }
        if (client != null) {
            client.close();
            client = null;
        }
    }

    @Override
    public ConfigDef config() {
        return SourceConfig.CONFIG_DEF;
    }

    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config result = super.validate(connectorConfigs);
        SourceValidation.check(connectorConfigs, result);
        return result;
    }

    /** Offsets commit with the records they belong to, so a transactional producer makes delivery exactly-once. */
    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
        return ExactlyOnceSupport.SUPPORTED;
    }

    /** KIP-875: a hand-edited offset must be one this connector can resume from; a null offset resets. */
    @Override
    public boolean alterOffsets(Map<String, String> connectorConfig, Map<Map<String, ?>, Map<String, ?>> offsets) {
        for (Map.Entry<Map<String, ?>, Map<String, ?>> e : offsets.entrySet()) {
            Namespace ns = SourceOffset.namespace(e.getKey());
            if (e.getValue() != null) {
                try {
                    SourceOffset.fromMap(e.getValue());
                } catch (InvalidOffsetException bad) {
                    throw new InvalidOffsetException("offset of " + ns + ": " + bad.getMessage());
                }
            }
        }
        return true;
    }
}
