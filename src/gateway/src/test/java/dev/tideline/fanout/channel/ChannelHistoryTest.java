package dev.tideline.fanout.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ChannelHistoryTest {
    private static final ChannelName CH = new ChannelName("db", "c", "t");
    private static final TopicPartition P0 = new TopicPartition("x.db.c", 0);
    private static final TopicPartition P1 = new TopicPartition("x.db.c", 1);

    private static RoutedChange change(TopicPartition tp, long offset, long at, int bytes) {
        return new RoutedChange(CH, tp, offset, at, new byte[bytes]);
    }

    private static List<Long> offsets(List<RoutedChange> l) {
        return l.stream().map(RoutedChange::offset).toList();
    }

    @Test
    void keepsAtMostSizeChangesAndKnowsFromWhereItIsComplete() {
        ChannelHistory h = new ChannelHistory(new HistoryLimits(3, 60_000, 1 << 20, 1 << 20), new AtomicLong());
        for (long o = 10; o < 15; o++) {
            h.append(change(P0, o, 1000, 10), 1000);
        }

        assertThat(h.size()).isEqualTo(3);
        assertThat(offsets(h.since(Map.of(P0, 12L)))).containsExactly(12L, 13L, 14L);
        assertThat(offsets(h.since(Map.of(P0, 14L)))).containsExactly(14L);
        assertThat(h.completeFrom(P0, 0)).isEqualTo(12); // 10 and 11 were evicted
        assertThat(h.completeFrom(P1, 5)).isEqualTo(5);  // nothing of P1 evicted: complete from where it began
    }

    @Test
    void isBoundedByBytesPerChannelAndCountsIntoTheSharedTotal() {
        AtomicLong total = new AtomicLong();
        ChannelHistory h = new ChannelHistory(new HistoryLimits(1000, 60_000, 250, 1 << 20), new AtomicLong());
        ChannelHistory counted = new ChannelHistory(new HistoryLimits(1000, 60_000, 250, 1 << 20), total);
        for (long o = 0; o < 10; o++) {
            h.append(change(P0, o, 1000, 100), 1000);
            counted.append(change(P1, o, 1000, 100), 1000);
        }

        assertThat(h.bytes()).isEqualTo(200);
        assertThat(h.size()).isEqualTo(2);
        assertThat(total.get()).isEqualTo(200);
        counted.clear();
        assertThat(total.get()).isZero();
        assertThat(counted.completeFrom(P1, 0)).isEqualTo(10);
    }

    @Test
    void expiresByAgeAndKeepsPartitionsApart() {
        ChannelHistory h = new ChannelHistory(new HistoryLimits(1000, 60_000, 1 << 20, 1 << 20), new AtomicLong());
        h.append(change(P0, 1, 1000, 1), 1000);
        h.append(change(P1, 7, 2000, 1), 2000);
        h.append(change(P0, 2, 30_000, 1), 30_000);
        h.prune(63_000);

        assertThat(offsets(h.since(Map.of(P0, 0L, P1, 0L)))).containsExactly(2L);
        assertThat(h.completeFrom(P0, 0)).isEqualTo(2);
        assertThat(h.completeFrom(P1, 0)).isEqualTo(8);
        assertThat(offsets(h.since(Map.of(P1, 0L)))).isEmpty();
    }
}
