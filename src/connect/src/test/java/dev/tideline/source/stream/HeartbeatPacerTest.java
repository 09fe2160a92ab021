package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeartbeatPacerTest {

    @Test
    void aQuietCollectionWhosePositionMovedGetsOneHeartbeatPerInterval() {
        HeartbeatPacer pacer = new HeartbeatPacer(10_000);
        Map<String, Long> last = new HashMap<>(Map.of("quiet", 0L, "busy", 9_000L, "unmoved", 0L));
        List<String> due = pacer.due(last.keySet(), last::get, c -> !c.equals("unmoved"), 10_000);
        assertThat(due).containsExactly("quiet");
        last.put("quiet", 10_000L);
        assertThat(pacer.due(last.keySet(), last::get, c -> !c.equals("unmoved"), 15_000)).isEmpty();
        assertThat(pacer.due(last.keySet(), last::get, c -> !c.equals("unmoved"), 20_000)).containsExactlyInAnyOrder("quiet", "busy");
    }

    @Test
    void twoThousandQuietCollectionsCostAtMostTwentyHeartbeatsASecondMostOverdueFirst() {
        HeartbeatPacer pacer = new HeartbeatPacer(10_000);
        Map<Integer, Long> last = new HashMap<>();
        for (int i = 0; i < 2_000; i++) {
            last.put(i, (long) -i); // collection i has been quiet a little longer than i-1
        }
        long sent = 0;
        List<Integer> first = pacer.due(last.keySet(), last::get, c -> true, 10_000);
        assertThat(first).hasSize(HeartbeatPacer.MAX_PER_SECOND);
        assertThat(first.get(0)).isEqualTo(1_999);
        List<Integer> all = new ArrayList<>(first);
        first.forEach(c -> last.put(c, 10_000L));
        sent += first.size();
        // 99 more checks, one a second: every collection gets its heartbeat once, at 20 a second
        for (long now = 11_000; now <= 109_000; now += 1_000) {
            List<Integer> due = pacer.due(last.keySet(), last::get, c -> true, now);
            assertThat(due.size()).isLessThanOrEqualTo(HeartbeatPacer.MAX_PER_SECOND);
            for (Integer c : due) {
                last.put(c, now);
            }
            all.addAll(due);
            sent += due.size();
        }
        assertThat(sent).isEqualTo(2_000L);
        assertThat(all).doesNotHaveDuplicates();
    }

    @Test
    void batchesInQuickSuccessionDoNotLookAtEveryCollectionEachTime() {
        HeartbeatPacer pacer = new HeartbeatPacer(2_000);
        List<Integer> collections = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            collections.add(i);
        }
        int[] looked = {0};
        long sent = 0;
        // one batch a millisecond for 10 s, as under 1,000 writes/s spread over the collections, all of them quiet for longer
        // than the interval: their positions are checked when the budget allows a heartbeat, not after every batch
        for (long now = 10_000; now < 20_000; now++) {
            sent += pacer.due(collections, c -> 0L, c -> {
                looked[0]++;
                return true;
            }, now).size();
        }
        assertThat(sent).isBetween(190L, 220L);
        assertThat(looked[0]).isLessThanOrEqualTo(2_000 * 220);
    }

    @Test
    void zeroDisablesHeartbeats() {
        assertThat(new HeartbeatPacer(0).due(List.of("a"), c -> 0L, c -> true, 1_000_000)).isEmpty();
    }
}
