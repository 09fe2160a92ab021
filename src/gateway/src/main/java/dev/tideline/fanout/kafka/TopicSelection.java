package dev.tideline.fanout.kafka;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/** Which partitions the gateway reads: every partition of every topic the pattern matches whole. */
final class TopicSelection {
    private TopicSelection() {
    }

    static Set<TopicPartition> partitions(Map<String, List<PartitionInfo>> topics, Pattern pattern) {
        Set<TopicPartition> out = new HashSet<>();
        topics.forEach((topic, infos) -> {
            if (!topic.startsWith("__") && pattern.matcher(topic).matches()) {
                infos.forEach(p -> out.add(new TopicPartition(topic, p.partition())));
            }
        });
        return out;
    }
}
