package dev.tideline.fanout.resume;

import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.channel.ResumePlan;
import dev.tideline.fanout.channel.RoutedChange;
import dev.tideline.fanout.delivery.DisconnectReason;
import dev.tideline.fanout.kafka.ChangeRouter;
import dev.tideline.fanout.kafka.DocumentMemory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * Reads back from Kafka what one subscriber missed of one channel: each partition from the
 * subscriber's position (or, for a topic its cursor does not name, from a time) up to the boundary
 * where its live changes began, routed as the live consumer routes them, with a memory of its own: a
 * delete without a tenant header goes to the tenant this reader saw for that document before it
 * (within {@code lookback} records before the position, or in the range), never to the live memory's,
 * which may be another tenant's document that reuses the {@code _id} since; a delete whose document
 * it did not see is not delivered (the live consumer counted it). A position older
 * than what the topic still holds is {@code unrecoverable}. Runs on a reader thread that owns the
 * consumer.
 */
final class KafkaRangeReader {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** A partition that yields nothing for this long while records remain: Kafka is unreachable. */
    private static final long STALL_MILLIS = 60_000;

    /** @param lookback records read before a position only to recognise replays there */
    record Settings(ValueFormat format, int maxDepth, int memoryEntries, int lookback) {
    }

    private final Consumer<byte[], byte[]> consumer;
    private final Settings settings;
    private final Pacer pacer;

    KafkaRangeReader(Consumer<byte[], byte[]> consumer, Settings settings, Pacer pacer) {
        this.consumer = consumer;
        this.settings = settings;
        this.pacer = pacer;
    }

    /** @return how the channel ended: caught up, unrecoverable or aborted */
    String run(CatchUpTarget target, int index, ChannelName channel, ResumePlan plan) {
        Map<TopicPartition, Long> boundary = plan.boundary();
        List<TopicPartition> tps = boundary.keySet().stream()
                .sorted(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition)).toList();
        Map<TopicPartition, Long> begins = consumer.beginningOffsets(tps, TIMEOUT);
        Map<TopicPartition, Long> starts = new HashMap<>();
        Map<TopicPartition, Long> timeQuery = new HashMap<>();
        for (TopicPartition tp : tps) {
            long known = plan.positions().get(tp);
            if (known >= 0) {
                if (known < begins.getOrDefault(tp, 0L)) {
                    target.unrecoverable(index, "beyond-retention", boundary);
                    return "unrecoverable:beyond-retention";
                }
                starts.put(tp, known);
            } else if (plan.fromTime().contains(tp)) {
                timeQuery.put(tp, plan.fromTimeMillis());
            } else {
                starts.put(tp, boundary.get(tp));
            }
        }
        if (!timeQuery.isEmpty()) {
            Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(timeQuery, TIMEOUT);
            for (TopicPartition tp : timeQuery.keySet()) {
                OffsetAndTimestamp at = found.get(tp);
                starts.put(tp, at == null ? boundary.get(tp) : at.offset());
            }
        }
        ChangeRouter router = new ChangeRouter(settings.format(), settings.maxDepth(), new DocumentMemory(settings.memoryEntries()));
        for (TopicPartition tp : tps) {
            if (!read(target, index, channel, router, tp, starts.get(tp), boundary.get(tp), begins.getOrDefault(tp, 0L))) {
                return "aborted";
            }
        }
        target.finish(index, boundary);
        return "kafka";
    }

    /** False when the subscriber went away or the read had to stop. */
    private boolean read(CatchUpTarget target, int index, ChannelName channel, ChangeRouter router, TopicPartition tp,
                         long from, long end, long begin) {
        if (from >= end) {
            return true;
        }
        long seekTo = Math.max(begin, from - settings.lookback());
        consumer.assign(List.of(tp));
        consumer.seek(tp, seekTo);
        long lastProgress = System.currentTimeMillis();
        while (true) {
            if (!target.isOpen()) {
                return false;
            }
            List<ConsumerRecord<byte[], byte[]>> records = consumer.poll(Duration.ofMillis(200)).records(tp);
            for (ConsumerRecord<byte[], byte[]> r : records) {
                if (r.offset() >= end) {
                    return true;
                }
                boolean deliver = r.offset() >= from;
                Optional<ChannelName> named = ChangeRouter.channelInHeaders(name -> header(r, name));
                if (named.isEmpty() || named.get().equals(channel)) {
                    ChangeRouter.Route route = routeSafely(router, r);
                    if (deliver && route instanceof ChangeRouter.Routed routed && routed.channel().equals(channel)) {
                        if (!pacer.awaitRoom(target)) {
                            return false;
                        }
                        RoutedChange change = RoutedChange.render(channel, tp, r.offset(), r.timestamp(), System.currentTimeMillis(),
                                routed.changeJson());
                        if (!target.deliver(index, change)) {
                            return false;
                        }
                    }
                }
                if (deliver) {
                    target.advance(index, tp, r.offset() + 1);
                }
            }
            long position = consumer.position(tp, TIMEOUT);
            if (position >= end) {
                return true; // the rest were transaction markers or compacted away
            }
            long now = System.currentTimeMillis();
            if (!records.isEmpty()) {
                lastProgress = now;
            } else if (now - lastProgress > STALL_MILLIS) {
                target.abort(DisconnectReason.UNAVAILABLE);
                return false;
            }
        }
    }

    private static ChangeRouter.Route routeSafely(ChangeRouter router, ConsumerRecord<byte[], byte[]> r) {
        try {
            return router.route(r.value(), name -> header(r, name));
        } catch (RuntimeException | StackOverflowError e) {
            // the live consumer skipped and counted it (poison) as well
            return new ChangeRouter.Skipped("poison", e.toString());
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
