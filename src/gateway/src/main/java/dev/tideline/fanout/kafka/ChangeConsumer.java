package dev.tideline.fanout.kafka;

import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.retry.Backoff;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ConsumerProgress;
import dev.tideline.log.LogText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
 * The gateway's one live Kafka consumer, on its own thread: assigned (no group) to every partition of
 * the matching topics, each started {@code history.age.ms} back so the history is warm at start-up,
 * then read live and handed to the {@link ChannelHub}. It never gives up: a broker outage makes it
 * {@code down} at /health and it goes on from where it was once the brokers answer again; a record
 * it cannot route is skipped and counted, never fatal.
 */
public final class ChangeConsumer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChangeConsumer.class);
    /** How long one metadata or offsets request may take before the brokers count as unreachable. */
    private static final Duration BROKER_TIMEOUT = Duration.ofSeconds(5);
    /** after a failed poll: the first wait, doubling up to {@link #MAX_BACKOFF_MS} while the brokers stay unreachable */
    private static final long INITIAL_BACKOFF_MS = 200;
    private static final long MAX_BACKOFF_MS = 5_000;
    /** how long one poll waits for records, and the wait between looks while no partition is assigned */
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(200);
    /** the Kafka client's own reconnect back-off cap: short, so a broker back after an outage is found soon */
    private static final int RECONNECT_BACKOFF_MAX_MS = 2_000;
    /** how long {@link #close} waits for the consumer thread to finish its poll */
    private static final long CLOSE_WAIT_MS = 10_000;
    /** While the brokers stay unreachable, a reminder this often (the first failure is logged at once). */
    private static final long OUTAGE_LOG_EVERY_MS = 60_000;

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Pattern topics;
    private final long refreshMs;
    private final long historyAgeMs;
    private final ChangeRouter router;
    private final ChannelHub hub;
    private final ConsumerProgress progress;
    private final GatewayStats stats;
    private final ConsumerHealth health = new ConsumerHealth();
    private final Thread thread;
    private final CountDownLatch firstAssignment = new CountDownLatch(1);
    private final Set<String> loggedReasons = ConcurrentHashMap.newKeySet();
    private volatile boolean running = true;
    private Set<TopicPartition> assigned = new HashSet<>();
    private long lastOutageLog;

    public ChangeConsumer(Map<String, Object> clientProps, Pattern topics, long refreshMs, long historyAgeMs,
                          ChangeRouter router, ChannelHub hub, GatewayStats stats) {
        this.consumer = new KafkaConsumer<>(consumerProps(clientProps, "tideline-fanout-live"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.topics = topics;
        this.refreshMs = refreshMs;
        this.historyAgeMs = historyAgeMs;
        this.router = router;
        this.hub = hub;
        this.progress = hub.progress();
        this.stats = stats;
        this.thread = new Thread(this::run, "tideline-fanout-consumer");
        this.thread.setDaemon(true);
    }

    /** Settings every gateway consumer shares: no group, nothing committed, fetches that return quickly. */
    public static Map<String, Object> consumerProps(Map<String, Object> clientProps, String clientId) {
        Map<String, Object> props = new HashMap<>(clientProps);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-" + Long.toHexString(System.nanoTime() & 0xffffff));
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // a position past the log's end or before its start (retention) restarts at what the log still holds
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
        props.putIfAbsent(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, RECONNECT_BACKOFF_MAX_MS);
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        return props;
    }

    public void start() {
        thread.start();
    }

    public ConsumerHealth health() {
        return health;
    }

    /** Waits until the first topic scan is done (the start-up refill is then under way). */
    public boolean awaitFirstAssignment(Duration timeout) throws InterruptedException {
        return firstAssignment.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void run() {
        long nextRefresh = 0;
        Backoff backoff = new Backoff(INITIAL_BACKOFF_MS, MAX_BACKOFF_MS);
        String stoppedBecause = null;
        try {
            while (running) {
                try {
                    long now = System.currentTimeMillis();
                    if (now >= nextRefresh) {
                        nextRefresh = now + refreshMs;
                        refresh(now);
                    }
                    if (assigned.isEmpty()) {
                        Thread.sleep(Math.min(refreshMs, POLL_TIMEOUT.toMillis()));
                        continue;
                    }
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL_TIMEOUT)) {
                        handle(r);
                    }
                    backoff.reset();
                } catch (WakeupException e) {
                    if (running) {
                        LOG.warn("the fanout consumer was woken up unexpectedly; it goes on");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    stoppedBecause = "interrupted";
                    return;
                } catch (RuntimeException e) {
                    // the brokers are unreachable, or a request failed: keep the positions, retry, report at /health
                    outage(e);
                    Thread.sleep(backoff.next());
                    nextRefresh = 0;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stoppedBecause = "interrupted";
        } catch (Error e) {
            stoppedBecause = "the consumer thread died: " + e;
            LOG.error("the fanout consumer stopped: no more changes will be delivered", e);
            throw e;
        } finally {
            health.stopped(running ? stoppedBecause : null);
            firstAssignment.countDown();
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void outage(RuntimeException e) {
        long now = System.currentTimeMillis();
        if (health.failed(now, e)) {
            lastOutageLog = now;
            LOG.warn("the fanout gateway cannot read Kafka ({}); /health answers 503 until it can, and it goes on from where it was",
                    LogText.message(e.toString()));
        } else if (now - lastOutageLog >= OUTAGE_LOG_EVERY_MS) {
            lastOutageLog = now;
            LOG.warn("the fanout gateway still cannot read Kafka after {} s ({})", (now - health.downSinceMillis()) / 1000,
                    LogText.message(e.toString()));
        }
    }

    private void handle(ConsumerRecord<byte[], byte[]> r) {
        stats.recordsRead.increment();
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        try {
            ChangeRouter.Route route = router.route(r.value(), name -> header(r, name));
            if (route instanceof ChangeRouter.Routed routed) {
                hub.namespaces().learned(routed.channel().db(), routed.channel().collection(), r.topic());
                if (routed.tenantRemembered()) {
                    stats.deletesRoutedByMemory.increment();
                    logOnce("delete-by-memory", () -> LOG.info("deletes without a tl.tenant header are delivered to the tenant "
                            + "the gateway last saw for their document (first: {}-{}@{}); deletes of documents it has not seen "
                            + "are counted as delete-without-tenant. Enable pre-images on the collections so the source puts "
                            + "the tenant on every delete.", r.topic(), r.partition(), r.offset()));
                }
                if (hub.publish(routed.channel(), tp, r.offset(), r.timestamp(), routed.changeJson()) != null) {
                    stats.changesPublished.increment();
                }
            } else if (route instanceof ChangeRouter.Skipped skipped) {
                skip(r, skipped.reason(), skipped.detail());
            }
        } catch (RuntimeException | StackOverflowError e) {
            // a record that breaks a decoder must not stop the others
            skip(r, "poison", e.toString());
        }
        progress.advanced(tp, r.offset() + 1);
    }

    private void skip(ConsumerRecord<byte[], byte[]> r, String reason, String detail) {
        stats.skipped(reason);
        if (ChangeRouter.NOT_A_CHANGE.equals(reason)) {
            return;
        }
        boolean expected = ChangeRouter.REPLAYED.equals(reason) || ChangeRouter.STALE_REPLAY.equals(reason);
        logOnce(reason, () -> {
            String msg = "record {}-{}@{} not delivered ({}): {}; further records skipped for this reason are only counted "
                    + "(skipped at /stats)";
            if (expected) {
                LOG.info(msg, r.topic(), r.partition(), r.offset(), LogText.message(reason), LogText.message(detail));
            } else {
                LOG.warn(msg, r.topic(), r.partition(), r.offset(), LogText.message(reason), LogText.message(detail));
            }
        });
    }

    private void logOnce(String key, Runnable log) {
        if (loggedReasons.add(key)) {
            log.run();
        }
    }

    /** Adds partitions of new matching topics (each started history.age.ms back), measures lag, sweeps channels. */
    private void refresh(long now) {
        Map<String, List<PartitionInfo>> all = consumer.listTopics(BROKER_TIMEOUT);
        Set<TopicPartition> wanted = TopicSelection.partitions(all, topics);
        if (!wanted.equals(assigned)) {
            Set<TopicPartition> added = new HashSet<>(wanted);
            added.removeAll(assigned);
            Map<TopicPartition, Long> starts = startOffsets(added, now);
            consumer.assign(wanted);
            for (TopicPartition tp : added) {
                consumer.seek(tp, starts.get(tp));
                progress.started(tp, starts.get(tp));
            }
            progress.assigned(wanted);
            assigned = wanted;
            if (!added.isEmpty()) {
                LOG.info("fanout reads {} partitions ({} new, from {} ms back)", wanted.size(), added.size(), historyAgeMs);
            }
        }
        progress.markReady();
        firstAssignment.countDown();
        long lag = 0;
        if (!assigned.isEmpty()) {
            for (Map.Entry<TopicPartition, Long> e : consumer.endOffsets(assigned, BROKER_TIMEOUT).entrySet()) {
                lag += Math.max(0, e.getValue() - Math.max(0, progress.next(e.getKey())));
                progress.measuredEnd(e.getKey(), e.getValue());
            }
        }
        if (health.state() == ConsumerHealth.State.DOWN) {
            LOG.info("the fanout gateway reads Kafka again after {} s; lag {} records", (now - health.downSinceMillis()) / 1000, lag);
        }
        health.contact(now, lag);
        hub.sweep();
    }

    private Map<TopicPartition, Long> startOffsets(Set<TopicPartition> added, long now) {
        Map<TopicPartition, Long> out = new HashMap<>();
        if (added.isEmpty()) {
            return out;
        }
        Map<TopicPartition, Long> query = new HashMap<>();
        added.forEach(tp -> query.put(tp, now - historyAgeMs));
        Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, BROKER_TIMEOUT);
        Map<TopicPartition, Long> ends = consumer.endOffsets(added, BROKER_TIMEOUT);
        for (TopicPartition tp : added) {
            OffsetAndTimestamp at = found.get(tp);
            out.put(tp, at != null ? at.offset() : ends.getOrDefault(tp, 0L));
        }
        return out;
    }

    static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
