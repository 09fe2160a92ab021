package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.TidelineVersion;
import dev.tideline.event.Namespace;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.config.SourceConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MongoDB change-data source: one topic per collection, collections spread over tasks, new
 * collections picked up by reconfiguration.
 */
public class TidelineSourceConnector extends SourceConnector {
    private static final Logger log = LoggerFactory.getLogger(TidelineSourceConnector.class);

    private static final long CLOSE_WAIT_MS = 2_000;

    private Map<String, String> props;
    private MongoClient client;
    private CollectionMonitor monitor;

    @Override
    public String version() {
        return TidelineVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SourceConfig config = new SourceConfig(props);
        MongoClient c = MongoClientFactory.create(config.connection().uri(), "tideline-source-connector", config.connection().connectTimeoutMs());
        try {
            List<Namespace> initial = listOrWait(c, config);
            monitor = new CollectionMonitor(c, config.selection(), initial, () -> context.requestTaskReconfiguration());
            this.client = c;
            this.props = Map.copyOf(props);
            if (initial != null) {
                log.info("Source connector started with {} collection(s): {}", initial.size(), initial);
            }
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /**
     * The collections to capture, or null when the source does not answer now. A source that is down
     * for a moment must not fail the connector for good (a FAILED connector stays so until someone
     * restarts it); the listing is asked again by {@link #taskConfigs}. Anything else (refused
     * credentials, a bad configuration) fails the start, with its reason.
     */
    private static List<Namespace> listOrWait(MongoClient c, SourceConfig config) {
        try {
            return CollectionDiscovery.list(c, config.selection());
        } catch (RuntimeException e) {
            if (MongoErrors.classify(e) != ErrorClass.RETRIABLE) {
                throw e;
            }
            log.warn("Source connector started, but the source at {} does not answer yet ({}): the collections are listed "
                    + "again when the tasks are configured; running tasks keep their collections meanwhile",
                    MongoClientFactory.hostsOf(config.connection().uri()), e.getClass().getSimpleName());
            return null;
        }
    }

    @Override
    public Class<? extends Task> taskClass() {
        return TidelineSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>();
        List<Namespace> collections = monitor.current();
        if (collections == null) {
            // still unlisted: a failure here makes Connect retry with back-off and keep the current tasks
            collections = monitor.listNow();
        }
        for (List<Namespace> group : TaskAssigner.assign(collections, maxTasks)) {
            Map<String, String> task = new HashMap<>(props);
            task.put(TaskCollections.KEY, TaskCollections.encode(group));
            configs.add(task);
        }
        return configs;
    }

    @Override
    public void stop() {
        if (monitor != null) {
            monitor.close();
        }
        if (client != null && !MongoClientFactory.closeWithin(client, CLOSE_WAIT_MS)) {
            log.warn("The source did not answer the client's goodbye within {} ms; it is abandoned", CLOSE_WAIT_MS);
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

    /**
     * KIP-618: every record carries the exact position to resume after (resume token, last copied
     * {@code _id}, scan cursor), so a worker that commits records and offsets in one transaction
     * delivers each change once (ExactlyOnceFaultIT, docs/exactly-once.md). In every mode.
     */
    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
        return ExactlyOnceSupport.SUPPORTED;
    }

    /**
     * The worker's boundaries ({@code poll} or {@code interval}) are the right ones: any batch ends
     * on a resumable position, so the connector has no boundary of its own to impose.
     */
    @Override
    public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> connectorConfig) {
        return ConnectorTransactionBoundaries.UNSUPPORTED;
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
