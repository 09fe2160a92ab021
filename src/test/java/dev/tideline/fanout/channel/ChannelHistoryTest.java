package dev.tideline.fanout.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChannelHistoryTest {
    private static final ChannelName CH = new ChannelName("db", "c", "t");

    private static SequencedChange change(long seq, long at) {
        return new SequencedChange(CH, seq, at, new byte[0]);
    }

    private static List<Long> seqs(ChannelHistory h, long lastSeen, long current) {
        return h.since(lastSeen, current).map(l -> l.stream().map(SequencedChange::seq).toList()).orElse(null);
    }

    @Test
    void keepsAtMostSizeChangesAndSaysWhenAResumeIsBeyondThem() {
        ChannelHistory h = new ChannelHistory(3, 60_000);
        for (long s = 1; s <= 5; s++) {
            h.append(change(s, 1000), 1000);
        }

        assertThat(h.size()).isEqualTo(3);
        assertThat(seqs(h, 2, 5)).containsExactly(3L, 4L, 5L);
        assertThat(seqs(h, 4, 5)).containsExactly(5L);
        assertThat(seqs(h, 5, 5)).isEmpty();
        assertThat(seqs(h, 1, 5)).isNull();   // 2 is gone
        assertThat(seqs(h, 0, 5)).isNull();
        assertThat(seqs(h, 6, 5)).isNull();   // from the future: not this run's position
        assertThat(seqs(h, -1, 5)).isNull();
    }

    @Test
    void dropsChangesOlderThanTheAge() {
        ChannelHistory h = new ChannelHistory(100, 1000);
        h.append(change(1, 0), 0);
        h.append(change(2, 500), 500);
        h.append(change(3, 1400), 1400);

        assertThat(seqs(h, 0, 3)).isNull();
        assertThat(seqs(h, 1, 3)).containsExactly(2L, 3L);
        h.prune(1600);
        assertThat(seqs(h, 1, 3)).isNull();
        assertThat(seqs(h, 2, 3)).containsExactly(3L);
    }

    @Test
    void aResumeFromZeroWorksWhileNothingWasEvicted() {
        ChannelHistory h = new ChannelHistory(10, 60_000);
        h.append(change(1, 0), 0);
        h.append(change(2, 0), 0);

        assertThat(seqs(h, 0, 2)).containsExactly(1L, 2L);
    }
}
