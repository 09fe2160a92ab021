package dev.tideline.source.config;

import dev.tideline.mongo.MongoConnectionSettings;
import dev.tideline.sign.RecordSigningSettings;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;

/** The source connector's configuration: small typed fragments over one ConfigDef. */
public final class SourceConfig extends AbstractConfig {
    public static final ConfigDef CONFIG_DEF = configDef();

    private final MongoConnectionSettings connection;
    private final SelectionSettings selection;
    private final TopicSettings topics;
    private final CaptureSettings capture;
    private final ScanSettings scan;
    private final HealthStateSettings healthState;
    private final RepairSettings repair;

    private final PeerSourceSettings peer;

    public SourceConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
        connection = MongoConnectionSettings.from(this);
        selection = new SelectionSettings(this);
        topics = new TopicSettings(this);
        capture = new CaptureSettings(this);
        scan = new ScanSettings(this);
        healthState = new HealthStateSettings(this);
        repair = new RepairSettings(this);

        peer = new PeerSourceSettings(this);
    }

    private static ConfigDef configDef() {
        ConfigDef def = new ConfigDef();
        MongoConnectionSettings.define(def, "Connection", "source");
        SelectionSettings.define(def);
        TopicSettings.define(def);
        CaptureSettings.define(def);
        ScanSettings.define(def);
        HealthStateSettings.define(def);
        RepairSettings.define(def);

        PeerSourceSettings.define(def);
        RecordSigningSettings.defineForSource(def);
        return def;
    }

    public MongoConnectionSettings connection() {
        return connection;
    }

    public SelectionSettings selection() {
        return selection;
    }

    public TopicSettings topics() {
        return topics;
    }

    public CaptureSettings capture() {
        return capture;
    }

    public ScanSettings scan() {
        return scan;
    }

    public HealthStateSettings healthState() {
        return healthState;
    }

    public RepairSettings repair() {
        return repair;
    }

    public PeerSourceSettings peer() {
        return peer;
    }
}
