package dev.tideline.source;

import dev.tideline.ConfiguredSourceConnector;
import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.source.capture.InvalidOffsetException;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import dev.tideline.source.config.CaptureSettings;
import dev.tideline.source.config.CaptureSettings.InitialSync;
import dev.tideline.source.config.SourceConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;

/**
 * MongoDB change-data source: one topic per collection. The task configs hold only each task's index
 * and the task count ({@link TaskOwnership}); every task finds and captures its own share of the
 * collections, new ones included, so the configs never change with the collections and Connect
 * restarts no task when one is created. The connector itself needs no connection to MongoDB (only
 * {@link #validate} reaches it, and an offset reset with initial.sync=skip), so a worker restarting during a MongoDB outage starts it as usual; the
 * tasks retry with back-off.
 */
public class TidelineSourceConnector extends ConfiguredSourceConnector {
    /** The key under which Connect passes the connector's name in its configuration. */
    private static final String CONNECTOR_NAME = "name";

    @Override
    protected void check(Map<String, String> props) {
        new SourceConfig(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return TidelineSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>();
        for (int i = 0; i < maxTasks; i++) {
            configs.add(TaskOwnership.configure(taskProps(), i, maxTasks));
        }
        return configs;
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

    /** The worker's boundaries (per poll, or per interval) apply: each collection's records are independent. */
    @Override
    public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> connectorConfig) {
        return ConnectorTransactionBoundaries.UNSUPPORTED;
    }

    /**
     * KIP-875: a hand-edited offset must be one this connector can resume from; a null offset resets.
     * With initial.sync=skip a reset also forgets the start kept in the source ({@link SkipStarts}):
     * resetting means "start again from now", not from the connector's first start.
     */
    @Override
    public boolean alterOffsets(Map<String, String> connectorConfig, Map<Map<String, ?>, Map<String, ?>> offsets) {
        Set<String> resetDbs = new TreeSet<>();
        for (Map.Entry<Map<String, ?>, Map<String, ?>> e : offsets.entrySet()) {
            Namespace ns = SourcePartition.namespace(e.getKey());
            if (e.getValue() != null) {
                try {
                    SourceOffset.fromMap(e.getValue());
                } catch (InvalidOffsetException bad) {
                    throw new InvalidOffsetException("offset of " + ns + ": " + bad.getMessage());
                }
            } else if (!SourcePartition.isChunk(e.getKey())) {
                resetDbs.add(ns.db()); // a chunk of a split copy is no start of its own
            }
        }
        String name = connectorConfig.get(CONNECTOR_NAME);
        if (!resetDbs.isEmpty() && name != null
                && InitialSync.parse(connectorConfig.getOrDefault(CaptureSettings.INITIAL_SYNC, "full")).startsWithoutCopy()) {
            SourceConfig config = new SourceConfig(connectorConfig);
            try (MongoClient client = MongoClientFactory.create(config.connection().uri().value(), "tideline-source-offsets",
                    config.connection().connectTimeoutMs())) {
                SkipStarts.forget(client, name, resetDbs);
            } catch (RuntimeException e) {
                throw new ConnectException("The offsets can be reset, but the start initial.sync=skip keeps in "
                        + resetDbs + " (collection " + SkipStarts.COLLECTION + ", _id " + name + ") could not be removed: "
                        + e.getMessage() + ". Without removing it, a reset collection would start again from the "
                        + "connector's first start, not from now. Retry when the source is reachable, or delete those "
                        + "documents by hand.", e);
            }
        }
        return true;
    }
}
