package dev.tideline.fanout.channel;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * How one channel of a subscription starts. Live changes from {@code boundary} on reach the
 * subscriber from the moment it is registered; what lies before is caught up first:
 * <ul>
 *   <li>{@code LIVE}: nothing to catch up (positions at or past the boundary);</li>
 *   <li>{@code CACHE}: {@code cached} holds every change between the positions and the boundary;</li>
 *   <li>{@code KAFKA}: read the partitions back from the positions (from {@code fromTimeMillis} for
 *       {@code fromTime}) to the boundary;</li>
 *   <li>{@code UNRECOVERABLE}: the client must reload ({@code reason}); live from the boundary.</li>
 * </ul>
 */
public record ResumePlan(Kind kind, Positions positions, Map<TopicPartition, Long> boundary, List<RoutedChange> cached,
                         Set<TopicPartition> fromTime, long fromTimeMillis, String reason) {
    public enum Kind { LIVE, CACHE, KAFKA, UNRECOVERABLE }

    public ResumePlan {
        boundary = Map.copyOf(boundary);
        cached = List.copyOf(cached);
        fromTime = Set.copyOf(fromTime);
    }

    /** The wire word for the subscribed event: how the gateway resumes this channel. */
    public String wire() {
        return kind.name().toLowerCase(java.util.Locale.ROOT);
    }
}
