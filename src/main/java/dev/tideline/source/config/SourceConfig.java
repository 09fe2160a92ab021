package dev.tideline.source.config;

import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;

/** The source connector's configuration: small typed fragments over one ConfigDef. */
public final class SourceConfig extends AbstractConfig {
    public static final ConfigDef CONFIG_DEF = configDef();

    private final ConnectionSettings connection;
    private final SelectionSettings selection;
    private final TopicSettings topics;
    private final CaptureSettings capture;
    private final ScanSettings scan;
    private final HealthStateSettings healthState;

    public SourceConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
        connection = new ConnectionSettings(this);
        selection = new SelectionSettings(this);
        topics = new TopicSettings(this);
        capture = new CaptureSettings(this);
        scan = new ScanSettings(this);
        healthState = new HealthStateSettings(this);
    }

    private static ConfigDef configDef() {
        ConfigDef def = new ConfigDef();
        ConnectionSettings.define(def);
        SelectionSettings.define(def);
        TopicSettings.define(def);
        CaptureSettings.define(def);
        ScanSettings.define(def);
        HealthStateSettings.define(def);
        return def;
    }

    public ConnectionSettings connection() {
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
}
