package dev.tideline.source.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.config.ConfigExamples;
import dev.tideline.event.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every source example in config/: the copy markers go to as many partitions as the change topics
 * have, i.e. what topic.creation.* creates where the example lets Connect create them, and the
 * example passes the connector's check for settings that could disagree.
 */
class SourceExamplesMarkerTest {

    @Test
    void everySourceExamplesMarkersReachEveryPartitionOfItsChangeTopics() {
        List<String> checked = new ArrayList<>();
        for (ConfigExamples.Example e : ConfigExamples.connectors("mongodb://127.0.0.1:27017/")) {
            if (!"dev.tideline.source.TidelineSourceConnector".equals(e.connectorClass())) {
                continue;
            }
            SourceConfig config = new SourceConfig(e.config());
            MarkerPartitions markers = config.topics().markerPartitions();
            assertThat(markers.problem()).as(e + ": " + markers.problem().orElse("")).isEmpty();
            Map<String, String> c = e.config();
            String db = c.getOrDefault("database.include", "shop").split(",")[0];
            String topic = config.topics().namer().topicFor(new Namespace(db, "orders"));
            String created = c.get("topic.creation.default.partitions");
            int expected = created == null ? 1 : Integer.parseInt(created);
            assertThat(markers.forTopic(topic)).as(e + ": markers of " + topic).isEqualTo(expected);
            checked.add(e + " -> " + topic + ": " + markers.forTopic(topic) + " partition(s)");
        }
        checked.forEach(System.out::println);
        assertThat(checked).hasSizeGreaterThanOrEqualTo(5);
    }
}
