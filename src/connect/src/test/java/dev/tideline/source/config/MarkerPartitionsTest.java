package dev.tideline.source.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class MarkerPartitionsTest {

    @Test
    void withoutTopicCreationTheSettingSaysItOrOne() {
        assertThat(MarkerPartitions.of(null, Map.of()).forTopic("t.shop.orders")).isEqualTo(1);
        assertThat(MarkerPartitions.of(4, Map.of()).forTopic("t.shop.orders")).isEqualTo(4);
        assertThat(MarkerPartitions.of(4, Map.of()).problem()).isEmpty();
    }

    @Test
    void topicsConnectCreatesGetTheirGroupsCountFirstMatchWins() {
        Map<String, String> config = Map.of(
                "topic.creation.default.replication.factor", "-1",
                "topic.creation.default.partitions", "6",
                "topic.creation.groups", "notices, archive",
                "topic.creation.notices.include", "tideline\\.heartbeats,tideline\\.control",
                "topic.creation.notices.partitions", "1",
                "topic.creation.archive.include", "tideline\\.shop\\.archive_.*",
                "topic.creation.archive.exclude", "tideline\\.shop\\.archive_big",
                "topic.creation.archive.partitions", "2");
        MarkerPartitions p = MarkerPartitions.of(null, config);
        assertThat(p.problem()).isEmpty();
        assertThat(p.forTopic("tideline.shop.orders")).isEqualTo(6);
        assertThat(p.forTopic("tideline.shop.archive_2024")).isEqualTo(2);
        assertThat(p.forTopic("tideline.shop.archive_big")).as("excluded from the group: the default").isEqualTo(6);
        assertThat(p.forTopic("tideline.control")).isEqualTo(1);
    }

    @Test
    void aGroupWithoutPartitionsTakesTheDefaults() {
        MarkerPartitions p = MarkerPartitions.of(null, Map.of("topic.creation.default.partitions", "3",
                "topic.creation.groups", "g", "topic.creation.g.include", "x\\..*"));
        assertThat(p.forTopic("x.a")).isEqualTo(3);
    }

    @Test
    void aCountThatDisagreesWithTopicCreationIsRefusedNamingBoth() {
        MarkerPartitions p = MarkerPartitions.of(1, Map.of("topic.creation.default.partitions", "6"));
        assertThat(p.problem()).hasValueSatisfying(m -> assertThat(m).contains("resnapshot.marker.partitions=1")
                .contains("topic.creation.default.partitions=6").contains("Remove"));
        assertThat(MarkerPartitions.of(6, Map.of("topic.creation.default.partitions", "6")).problem()).isEmpty();
    }

    @Test
    void theBrokersDefaultCountMustBeStated() {
        MarkerPartitions unknown = MarkerPartitions.of(null, Map.of("topic.creation.default.partitions", "-1"));
        assertThat(unknown.problem()).hasValueSatisfying(m -> assertThat(m).contains("num.partitions"));
        MarkerPartitions stated = MarkerPartitions.of(3, Map.of("topic.creation.default.partitions", "-1"));
        assertThat(stated.problem()).isEmpty();
        assertThat(stated.forTopic("any")).isEqualTo(3);
    }
}
