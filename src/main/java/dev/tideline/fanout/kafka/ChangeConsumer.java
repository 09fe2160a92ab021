package dev.tideline.fanout.kafka;

import dev.tideline.fanout.GatewayStats;
import dev.tideline.fanout.channel.ChannelHub;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's one Kafka consumer, on its own thread: assigned (no group) to every partition of
 * the matching topics, each started {@code history.age.ms} back so the channels' history is
 * refilled at start-up, then read live and handed to the {@link ChannelHub}.
 */
public final class ChangeConsumer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeConsumer.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Pattern topics;
    private final long refreshMs;
    private final long historyAgeMs;
    private final ChangeRouter router;
    private final ChannelHub hub;
    private final GatewayStats stats;
    private final Thread thread;
    private final CountDownLatch firstAssignment = new CountDownLatch(1);
    private volatile boolean running = true;
    private Set<TopicPartition> assigned = new HashSet<>();

    public ChangeConsumer(String bootstrapServers, Pattern topics, long refreshMs, long historyAgeMs,
                          ChangeRouter router, ChannelHub hub, GatewayStats stats) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "tideline-fanout-" + hub.epoch());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
        this.consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.topics = topics;
        this.refreshMs = refreshMs;
        this.historyAgeMs = historyAgeMs;
        this.router = router;
        this.hub = hub;
        this.stats = stats;
        this.thread = new Thread(this::run, "tideline-fanout-consumer");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** Waits until the first topic scan is done (the start-up refill is then under way). */
    public boolean awaitFirstAssignment(Duration timeout) throws InterruptedException {
        return firstAssignment.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void run() {
        long nextRefresh = 0;
        try {
            while (running) {
                long now = System.currentTimeMillis();
                if (now >= nextRefresh) {
                    refreshAssignment();
                    firstAssignment.countDown();
                    nextRefresh = now + refreshMs;
                }
                if (assigned.isEmpty()) {
                    Thread.sleep(Math.min(refreshMs, 200));
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    stats.recordsRead.increment();
                    ChangeRouter.Route route = router.route(r.value(), name -> header(r, name));
                    if (route instanceof ChangeRouter.Routed routed) {
                        hub.publish(routed.channel(), routed.changeJson(), r.timestamp());
                        stats.changesPublished.increment();
                    } else if (route instanceof ChangeRouter.Skipped skipped) {
                        stats.skipped(skipped.reason());
                        if (!"not-a-change".equals(skipped.reason())) {
                            LOG.warn("record {}-{}@{} not delivered ({}): {}", r.topic(), r.partition(), r.offset(),
                                    skipped.reason(), skipped.detail());
                        }
                    }
                }
            }
        } catch (WakeupException e) {
            if (running) {
                LOG.error("the fanout consumer was woken up unexpectedly", e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("the fanout consumer stopped: no more changes will be delivered", e);
        } finally {
            firstAssignment.countDown();
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /** Adds partitions of new matching topics, each started history.age.ms back (or at its end). */
    private void refreshAssignment() {
        Map<String, List<PartitionInfo>> all = consumer.listTopics(Duration.ofSeconds(10));
        Set<TopicPartition> wanted = TopicSelection.partitions(all, topics);
        if (wanted.equals(assigned)) {
            return;
        }
        Set<TopicPartition> added = new HashSet<>(wanted);
        added.removeAll(assigned);
        consumer.assign(wanted);
        if (!added.isEmpty()) {
            long since = System.currentTimeMillis() - historyAgeMs;
            Map<TopicPartition, Long> query = new HashMap<>();
            added.forEach(tp -> query.put(tp, since));
            Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, Duration.ofSeconds(10));
            Map<TopicPartition, Long> ends = consumer.endOffsets(added, Duration.ofSeconds(10));
            for (TopicPartition tp : added) {
                OffsetAndTimestamp at = found.get(tp);
                consumer.seek(tp, at != null ? at.offset() : ends.getOrDefault(tp, 0L));
            }
            LOG.info("fanout reads {} partitions ({} new, from {} ms back)", wanted.size(), added.size(), historyAgeMs);
        }
        assigned = wanted;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
