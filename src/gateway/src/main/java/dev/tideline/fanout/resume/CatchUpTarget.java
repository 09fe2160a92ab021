package dev.tideline.fanout.resume;

import dev.tideline.fanout.channel.RoutedChange;
import dev.tideline.fanout.delivery.DisconnectReason;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A subscriber being caught up on one of its channels (by index in its subscription) while its live
 * changes of that channel wait. Calls come from a catch-up thread.
 */
public interface CatchUpTarget {
    boolean isOpen();

    /** Bytes written to the socket and not yet taken by it. */
    long pendingBytes();

    /** The connection's queue bound: the catch-up waits while more than half of it is pending. */
    long queueMaxBytes();

    /** Sends one change the subscriber missed (unless its position is already past it); false once closed. */
    boolean deliver(int channel, RoutedChange change);

    /** Everything of the channel on this partition before {@code next} has been handed over. */
    void advance(int channel, TopicPartition tp, long next);

    /** Caught up to the boundary: the waiting live changes follow, then the channel is live. */
    void finish(int channel, Map<TopicPartition, Long> boundary);

    /** What the subscriber missed is no longer in Kafka: it must reload; live from the boundary. */
    void unrecoverable(int channel, String reason, Map<TopicPartition, Long> boundary);

    /** The catch-up cannot go on (the subscriber stopped reading, Kafka is unreachable): close it. */
    void abort(DisconnectReason reason);
}
