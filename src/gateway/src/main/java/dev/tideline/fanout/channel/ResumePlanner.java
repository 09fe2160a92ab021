package dev.tideline.fanout.channel;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/** Decides a channel's {@link ResumePlan} from what the client asks and what the gateway holds. Pure. */
public final class ResumePlanner {
    private ResumePlanner() {
    }

    /** What the gateway knows of one channel when a subscriber registers (its lock held). */
    public interface View {
        /** The partitions of the topics that hold the channel's namespace. */
        Set<TopicPartition> channelPartitions();

        /** Partitions the gateway reads of a topic (0: it does not read it). */
        int partitionCount(String topic);

        /** The offset from which live changes of the partition reach a subscriber registered now. */
        long boundary(TopicPartition tp);

        /** Whether the history holds every change of the channel from these positions on. */
        boolean covers(Map<TopicPartition, Long> from);

        List<RoutedChange> since(Map<TopicPartition, Long> from);
    }

    /** @param timeMarginMillis how far before the client's subscription time a topic its cursor does not name is read */
    public static ResumePlan plan(StartPoint start, View view, long timeMarginMillis) {
        Set<TopicPartition> tps = new HashSet<>(view.channelPartitions());
        if (start instanceof StartPoint.After after) {
            for (String topic : after.positions().topics()) {
                int count = view.partitionCount(topic);
                if (count == 0) {
                    return unrecoverable(view, tps, "unknown-topic");
                }
                for (int p = 0; p < count; p++) {
                    tps.add(new TopicPartition(topic, p));
                }
            }
            for (TopicPartition tp : after.positions().known().keySet()) {
                if (tp.partition() >= view.partitionCount(tp.topic())) {
                    return unrecoverable(view, tps, "unknown-topic");
                }
            }
        }
        Map<TopicPartition, Long> boundary = boundary(view, tps);
        if (start instanceof StartPoint.After after) {
            return resume(after, view, tps, boundary, timeMarginMillis);
        }
        if (start instanceof StartPoint.BadCursor) {
            return unrecoverable(view, tps, "bad-cursor");
        }
        if (start instanceof StartPoint.Earliest) {
            return new ResumePlan(ResumePlan.Kind.KAFKA, new Positions(), boundary, List.of(), tps, 0, null);
        }
        return new ResumePlan(ResumePlan.Kind.LIVE, new Positions(boundary), boundary, List.of(), Set.of(), 0, null);
    }

    private static ResumePlan resume(StartPoint.After after, View view, Set<TopicPartition> tps,
                                     Map<TopicPartition, Long> boundary, long marginMillis) {
        Map<TopicPartition, Long> from = new HashMap<>(after.positions().known());
        Set<TopicPartition> absent = new HashSet<>(tps);
        absent.removeAll(from.keySet());
        Map<TopicPartition, Long> behind = new HashMap<>();
        from.forEach((tp, offset) -> {
            if (offset < boundary.get(tp)) {
                behind.put(tp, offset);
            }
        });
        Positions positions = new Positions(from);
        if (absent.isEmpty() && behind.isEmpty()) {
            return new ResumePlan(ResumePlan.Kind.LIVE, positions, boundary, List.of(), Set.of(), 0, null);
        }
        if (absent.isEmpty() && view.covers(behind)) {
            return new ResumePlan(ResumePlan.Kind.CACHE, positions, boundary, view.since(behind), Set.of(), 0, null);
        }
        return new ResumePlan(ResumePlan.Kind.KAFKA, positions, boundary, List.of(), absent,
                Math.max(0, after.subscribedAtMillis() - marginMillis), null);
    }

    private static ResumePlan unrecoverable(View view, Set<TopicPartition> tps, String reason) {
        Set<TopicPartition> readable = new HashSet<>();
        for (TopicPartition tp : tps) {
            if (tp.partition() < view.partitionCount(tp.topic())) {
                readable.add(tp);
            }
        }
        Map<TopicPartition, Long> boundary = boundary(view, readable);
        return new ResumePlan(ResumePlan.Kind.UNRECOVERABLE, new Positions(boundary), boundary, List.of(), Set.of(), 0, reason);
    }

    private static Map<TopicPartition, Long> boundary(View view, Set<TopicPartition> tps) {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (TopicPartition tp : tps) {
            out.put(tp, view.boundary(tp));
        }
        return out;
    }
}
