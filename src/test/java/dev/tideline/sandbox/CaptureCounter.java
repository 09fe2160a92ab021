package dev.tideline.sandbox;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Counts the change records on the connector's topics ({@code <prefix>.<db>.*}), in a thread of its own. */
final class CaptureCounter implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, AtomicLong> perTopic = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile RuntimeException failure;

    CaptureCounter(String bootstrapServers, String topicPrefix) {
        consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "tideline-sandbox-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false,
                // Pattern subscriptions see topics the connector creates only at the next metadata refresh.
                ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1000),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(Pattern.compile(Pattern.quote(topicPrefix + ".") + ".*"));
        thread = new Thread(this::run, "sandbox-capture-counter");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            while (true) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    // A delete may be followed by a tombstone (null value) for log compaction: it is
                    // not a second change.
                    if (record.value() != null) {
                        perTopic.computeIfAbsent(record.topic(), t -> new AtomicLong()).incrementAndGet();
                    }
                }
            }
        } catch (WakeupException e) {
            // close() woke us up: the normal way out.
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            consumer.close(Duration.ofSeconds(2));
        }
    }

    long captured(String topic) {
        AtomicLong count = perTopic.get(topic);
        return count == null ? 0 : count.get();
    }

    /** Throws what stopped the counting thread, so a dead counter is not shown as "nothing captured". */
    void checkHealthy() {
        if (failure != null) {
            throw new IllegalStateException("counting the captured records failed", failure);
        }
    }

    @Override
    public void close() {
        consumer.wakeup();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
