package dev.tideline.sink.front;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.apache.kafka.connect.connector.Task;

/**
 * The peer sink as the sink's connector sees it: the task it runs when {@code peer.cluster.id} is set. Found with
 * {@link ServiceLoader} (the plugin's {@code META-INF/services}), so that the sink never names the peer sink's code
 * and the peer sink uses the sink through {@link SinkFrontEnd} only.
 */
public interface PeerMode {
    Class<? extends Task> taskClass();

    /**
     * The one peer mode in the plugin.
     *
     * @throws IllegalStateException when the plugin has none or several (a broken build: a sink must never run plain
     *                               when peer mode was asked for)
     */
    static PeerMode installed() {
        List<PeerMode> found = new ArrayList<>();
        ServiceLoader.load(PeerMode.class, PeerMode.class.getClassLoader()).forEach(found::add);
        if (found.size() != 1) {
            throw new IllegalStateException("expected one peer mode in the plugin (META-INF/services/"
                    + PeerMode.class.getName() + "), found " + found.size() + ": reinstall the Tideline plugin");
        }
        return found.get(0);
    }
}
