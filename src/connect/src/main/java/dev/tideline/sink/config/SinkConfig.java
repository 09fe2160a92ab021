package dev.tideline.sink.config;

import dev.tideline.mongo.MongoConnectionSettings;
import dev.tideline.sign.RecordSigningSettings;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The sink connector's configuration: the fragments below, each with its group, documentation,
 * validators and recommenders. {@link #configDef()} is complete: the reference docs are generated from it.
 * Connect's own keys ({@code topics}, {@code errors.*}) are defined by the worker, not here.
 */
public final class SinkConfig extends AbstractConfig {
    /** Connect's key; read to know whether a refused record may be reported and skipped. */
    public static final String ERRORS_TOLERANCE = "errors.tolerance";

    private final MongoConnectionSettings connection;
    private final RoutingSettings routing;
    private final WriteSettings writes;
    private final RetrySettings retry;
    private final PeerSinkSettings peer;
    private final RecordSafetySettings safety;
    private final boolean tolerateAll;

    public SinkConfig(Map<String, String> props) {
        super(configDef(), props);
        this.connection = MongoConnectionSettings.from(this);
        this.routing = new RoutingSettings(this);
        this.writes = new WriteSettings(this);
        this.retry = new RetrySettings(this);
        this.peer = new PeerSinkSettings(this);
        this.safety = new RecordSafetySettings(this);
        this.tolerateAll = "all".equals(props.getOrDefault(ERRORS_TOLERANCE, "none").trim().toLowerCase(Locale.ROOT));
    }

    public static ConfigDef configDef() {
        ConfigDef def = new ConfigDef();
        MongoConnectionSettings.define(def, "Destination", "destination");
        RoutingSettings.define(def);
        WriteSettings.define(def);
        RetrySettings.define(def);
        PeerSinkSettings.define(def);
        RecordSafetySettings.define(def);
        RecordSigningSettings.defineForSink(def);
        return def;
    }

    public MongoConnectionSettings connection() {
        return connection;
    }

    public RoutingSettings routing() {
        return routing;
    }

    public WriteSettings writes() {
        return writes;
    }

    public RetrySettings retry() {
        return retry;
    }

    public PeerSinkSettings peer() {
        return peer;
    }

    public RecordSafetySettings safety() {
        return safety;
    }

    /** {@code errors.tolerance=all}: refused and malformed records are reported (DLQ) and skipped. */
    public boolean tolerateAll() {
        return tolerateAll;
    }
}
