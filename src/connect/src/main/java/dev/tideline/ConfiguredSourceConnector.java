package dev.tideline;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * What the plugin's source connectors (the capture's and the verify connector) do alike: report the plugin's version,
 * check their configuration when they start (a bad one fails the connector, with the key at fault, not each task)
 * and hand it to their tasks. The tasks own the clients: a connector holds nothing else.
 */
public abstract class ConfiguredSourceConnector extends SourceConnector {
    private Map<String, String> props;

    @Override
    public final String version() {
        return TidelineVersion.get();
    }

    @Override
    public final void start(Map<String, String> props) {
        check(props);
        this.props = Map.copyOf(props);
    }

    /** Throws when {@code props} is not a configuration of this connector, naming the key at fault. */
    protected abstract void check(Map<String, String> props);

    /** The configuration the connector started with, in a new map a task's own keys are added to. */
    protected final Map<String, String> taskProps() {
        return new HashMap<>(props);
    }

    @Override
    public void stop() {
        props = null;
    }
}
