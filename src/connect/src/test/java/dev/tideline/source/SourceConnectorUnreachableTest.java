package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.health.TaskIdentity;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The connector needs no MongoDB to start or to give task configs: each task finds its own share of
 * the collections, so the configs hold only the task's index and the count, and stay the same when
 * collections come and go (Connect then restarts no task).
 */
class SourceConnectorUnreachableTest {

    private static Map<String, String> config(String uri) {
        return Map.of("name", "src", "mongodb.uri", uri, "mongodb.connect.timeout.ms", "500", "database.include", "shop",
                "collection.discovery.interval.ms", "1000");
    }

    @Test
    void startsWithoutTheServerAndGivesStableTaskConfigs() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        TidelineSourceConnector connector = new TidelineSourceConnector();
        try {
            connector.start(config("mongodb://127.0.0.1:" + closed + "/"));
            List<Map<String, String>> tasks = connector.taskConfigs(3);
            assertThat(tasks).hasSize(3);
            for (int i = 0; i < 3; i++) {
                assertThat(tasks.get(i)).containsEntry(TaskIdentity.TASK_INDEX, Integer.toString(i)).containsEntry(TaskOwnership.COUNT, "3");
                assertThat(TaskOwnership.of(tasks.get(i))).isEqualTo(new TaskOwnership(i, 3));
            }
            assertThat(connector.taskConfigs(3)).as("the same every time: no reconfiguration").isEqualTo(tasks);
        } finally {
            connector.stop();
        }
    }
}
