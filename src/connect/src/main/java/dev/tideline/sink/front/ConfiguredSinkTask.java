package dev.tideline.sink.front;

import dev.tideline.TidelineVersion;
import dev.tideline.sink.config.SinkConfig;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * What the sink's two tasks (the sink's own and the peer sink's) start alike: they report the plugin's version and
 * build on their settings parsed into a {@link SinkConfig} (a bad one fails the task with the key at fault).
 */
public abstract class ConfiguredSinkTask extends SinkTask {
    @Override
    public final String version() {
        return TidelineVersion.get();
    }

    @Override
    public final void start(Map<String, String> props) {
        start(new SinkConfig(props), props);
    }

    /**
     * Starts the task on its parsed settings.
     *
     * @param props the same settings as Connect passed them, for what the worker adds (the connector's name, the
     *              task's index)
     */
    protected abstract void start(SinkConfig config, Map<String, String> props);
}
