package dev.tideline.fanout.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ResumePlannerTest {
    private static final String T = "tideline.shop.orders";
    private static final TopicPartition P0 = new TopicPartition(T, 0);
    private static final TopicPartition P1 = new TopicPartition(T, 1);

    /** A channel on topic T (2 partitions) whose live changes begin at 100 and 200; history complete from 50 and 150. */
    private static final class FakeView implements ResumePlanner.View {
        final Map<TopicPartition, Long> completeFrom = new HashMap<>(Map.of(P0, 50L, P1, 150L));
        final List<Map<TopicPartition, Long>> asked = new ArrayList<>();

        @Override
        public Set<TopicPartition> channelPartitions() {
            return Set.of(P0, P1);
        }

        @Override
        public int partitionCount(String topic) {
            return topic.equals(T) ? 2 : topic.equals("other") ? 1 : 0;
        }

        @Override
        public long boundary(TopicPartition tp) {
            return tp.equals(P0) ? 100 : tp.equals(P1) ? 200 : 7;
        }

        @Override
        public boolean covers(Map<TopicPartition, Long> from) {
            asked.add(from);
            return from.entrySet().stream().allMatch(e -> e.getValue() >= completeFrom.getOrDefault(e.getKey(), Long.MAX_VALUE));
        }

        @Override
        public List<RoutedChange> since(Map<TopicPartition, Long> from) {
            return List.of();
        }
    }

    private static StartPoint after(long o0, long o1) {
        return new StartPoint.After(new Positions(Map.of(P0, o0, P1, o1)), 1_000_000);
    }

    @Test
    void aLiveSubscriptionStartsAtTheBoundary() {
        ResumePlan p = ResumePlanner.plan(StartPoint.LIVE, new FakeView(), 60_000);

        assertThat(p.kind()).isEqualTo(ResumePlan.Kind.LIVE);
        assertThat(p.positions().known()).isEqualTo(Map.of(P0, 100L, P1, 200L));
    }

    @Test
    void aCursorAtOrPastTheBoundaryNeedsNoCatchUpAndKeepsItsPositions() {
        ResumePlan p = ResumePlanner.plan(after(100, 260), new FakeView(), 60_000);

        assertThat(p.kind()).isEqualTo(ResumePlan.Kind.LIVE);
        // ahead of this gateway (another node was further on): live changes below 260 are not sent again
        assertThat(p.positions().known()).isEqualTo(Map.of(P0, 100L, P1, 260L));
    }

    @Test
    void aCursorWithinTheHistoryIsServedFromIt() {
        FakeView view = new FakeView();
        ResumePlan p = ResumePlanner.plan(after(60, 200), view, 60_000);

        assertThat(p.kind()).isEqualTo(ResumePlan.Kind.CACHE);
        assertThat(view.asked).containsExactly(Map.of(P0, 60L)); // only what is behind the boundary
    }

    @Test
    void aCursorOlderThanTheHistoryIsReadFromKafka() {
        ResumePlan p = ResumePlanner.plan(after(10, 200), new FakeView(), 60_000);

        assertThat(p.kind()).isEqualTo(ResumePlan.Kind.KAFKA);
        assertThat(p.positions().known()).isEqualTo(Map.of(P0, 10L, P1, 200L));
        assertThat(p.boundary()).isEqualTo(Map.of(P0, 100L, P1, 200L));
        assertThat(p.fromTime()).isEmpty();
    }

    @Test
    void aTopicTheCursorDoesNotNameIsReadFromItsSubscriptionTime() {
        StartPoint onlyP0 = new StartPoint.After(new Positions(Map.of(P0, 90L)), 1_000_000);
        ResumePlan p = ResumePlanner.plan(onlyP0, new FakeView(), 60_000);

        assertThat(p.kind()).isEqualTo(ResumePlan.Kind.KAFKA);
        assertThat(p.fromTime()).containsExactly(P1);
        assertThat(p.fromTimeMillis()).isEqualTo(940_000);
    }

    @Test
    void aCursorNamingATopicTheGatewayDoesNotReadIsUnrecoverable() {
        StartPoint foreign = new StartPoint.After(new Positions(Map.of(new TopicPartition("gone", 0), 5L)), 1);
        StartPoint extraPartition = new StartPoint.After(new Positions(Map.of(P0, 1L, new TopicPartition(T, 5), 1L)), 1);

        ResumePlan p = ResumePlanner.plan(foreign, new FakeView(), 0);
        assertThat(p.kind()).isEqualTo(ResumePlan.Kind.UNRECOVERABLE);
        assertThat(p.reason()).isEqualTo("unknown-topic");
        assertThat(p.positions().known()).isEqualTo(Map.of(P0, 100L, P1, 200L));
        assertThat(ResumePlanner.plan(extraPartition, new FakeView(), 0).reason()).isEqualTo("unknown-topic");
    }

    @Test
    void aCursorNamingAnotherTopicTooCoversItsPartitions() {
        StartPoint withOther = new StartPoint.After(new Positions(Map.of(P0, 100L, P1, 200L, new TopicPartition("other", 0), 3L)), 1);
        ResumePlan p = ResumePlanner.plan(withOther, new FakeView(), 0);

        assertThat(p.kind()).isEqualTo(ResumePlan.Kind.KAFKA); // the view holds no history of "other"
        assertThat(p.boundary()).containsEntry(new TopicPartition("other", 0), 7L);
    }

    @Test
    void aBadCursorIsUnrecoverableAndEarliestReadsEverything() {
        assertThat(ResumePlanner.plan(StartPoint.BAD_CURSOR, new FakeView(), 0).reason()).isEqualTo("bad-cursor");
        ResumePlan earliest = ResumePlanner.plan(StartPoint.EARLIEST, new FakeView(), 0);
        assertThat(earliest.kind()).isEqualTo(ResumePlan.Kind.KAFKA);
        assertThat(earliest.fromTime()).containsExactlyInAnyOrder(P0, P1);
        assertThat(earliest.fromTimeMillis()).isZero();
    }
}
