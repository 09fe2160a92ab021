package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.source.capture.StreamPosition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class HistoryWindowTest {
    private static List<StreamPosition> positions(int n) {
        List<StreamPosition> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(StreamPosition.atOperationTime(new BsonTimestamp(1_000 + i, 0)));
        }
        return out;
    }

    @Test
    void findsTheOldestPositionStillInTheOplogWithFewProbes() {
        List<StreamPosition> all = positions(2_000);
        for (int oldest : new int[] {0, 1, 1_337, 1_999, 2_000}) {
            AtomicInteger probes = new AtomicInteger();
            int found = HistoryWindow.firstReachable(all, p -> {
                probes.incrementAndGet();
                return p.clusterTime().getTime() >= 1_000 + oldest;
            });
            assertThat(found).isEqualTo(oldest);
            assertThat(probes.get()).isLessThanOrEqualTo(11);
        }
    }
}
