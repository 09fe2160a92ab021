package dev.tideline.it.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Reads a whole topic from the beginning, all partitions, without a consumer group (nothing is
 * committed, so reading twice gives the same records). Never creates the topic it waits for.
 */
public final class TopicReader {
    private static final Duration POLL = Duration.ofMillis(200);
    /** Between two reads: none, the consumer's poll waits up to {@link #POLL} itself. */
    private static final Duration READ_AGAIN = Duration.ofMillis(1);

    private TopicReader() {
    }

    /** Reads until at least {@code atLeast} records arrived (read_uncommitted); AssertionError after {@code deadline}. */
    public static List<ConsumerRecord<byte[], byte[]>> readUntil(String bootstrap, String topic, int atLeast, Duration deadline) {
        return readUntil(bootstrap, topic, atLeast, deadline, IsolationLevel.READ_UNCOMMITTED);
    }

    /** As {@link #readUntil(String, String, int, Duration)}; READ_COMMITTED hides aborted and open transactions. */
    public static List<ConsumerRecord<byte[], byte[]>> readUntil(String bootstrap, String topic, int atLeast, Duration deadline,
                                                                 IsolationLevel isolation) {
        long started = System.nanoTime();
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, isolation)) {
            if (!assignFromBeginning(consumer, topic, deadline)) {
                throw new AssertionError("topic " + topic + " does not exist after " + deadline + " (wanted " + atLeast + " records)");
            }
            // the consumer's poll waits up to POLL itself: read again at once
            Waits.until(left(deadline, started), READ_AGAIN, () -> {
                if (records.size() < atLeast) {
                    consumer.poll(POLL).forEach(records::add);
                }
                return records.size();
            }, read -> read >= atLeast, read -> "read " + records.size() + " of at least " + atLeast + " records from "
                    + topic + " within " + deadline);
        }
        return records;
    }

    /**
     * Reads (read_uncommitted) with one consumer until {@code done} holds for everything read so far;
     * {@code done} is asked each time the reader has caught up with the topic, so it may be costly.
     * AssertionError with {@code what} after {@code deadline}.
     */
    public static List<ConsumerRecord<byte[], byte[]>> readUntil(String bootstrap, String topic, Predicate<List<ConsumerRecord<byte[], byte[]>>> done,
                                                                 String what, Duration deadline) {
        long started = System.nanoTime();
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, IsolationLevel.READ_UNCOMMITTED)) {
            if (!assignFromBeginning(consumer, topic, deadline)) {
                throw new AssertionError("topic " + topic + " does not exist after " + deadline + " (waiting for " + what + ")");
            }
            int[] asked = {-1};
            Waits.until(left(deadline, started), READ_AGAIN, () -> {
                int before = records.size();
                consumer.poll(POLL).forEach(records::add);
                if (records.size() == before && asked[0] != records.size()) {
                    asked[0] = records.size();
                    return done.test(records);
                }
                return false;
            }, Boolean::booleanValue, x -> topic + ": no " + what + " within " + deadline + " (" + records.size() + " records read)");
            return records;
        }
    }

    /** Reads (read_uncommitted) until no new record arrived for {@code quiet}; empty if the topic never appears. */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic, Duration quiet) {
        return readAll(bootstrap, topic, quiet, IsolationLevel.READ_UNCOMMITTED);
    }

    public static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic, Duration quiet,
                                                               IsolationLevel isolation) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, isolation)) {
            if (!assignFromBeginning(consumer, topic, quiet)) {
                return records;
            }
            long quietUntil = System.nanoTime() + quiet.toNanos();
            while (System.nanoTime() < quietUntil) {
                int before = records.size();
                consumer.poll(POLL).forEach(records::add);
                if (records.size() > before) {
                    quietUntil = System.nanoTime() + quiet.toNanos();
                }
            }
        }
        return records;
    }

    /**
     * Reads every record the topic holds now: up to the end offsets taken once it is assigned, so a topic that
     * keeps receiving records (heartbeats) still ends; empty if the topic does not appear within {@code wait}.
     */
    public static List<ConsumerRecord<byte[], byte[]>> readToEnd(String bootstrap, String topic, Duration wait) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap, IsolationLevel.READ_UNCOMMITTED)) {
            if (!assignFromBeginning(consumer, topic, wait)) {
                return records;
            }
            Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(30));
            Waits.until(Duration.ofMinutes(2), READ_AGAIN, () -> {
                if (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                        if (r.offset() < ends.get(new TopicPartition(r.topic(), r.partition()))) {
                            records.add(r);
                        }
                    }
                }
                return ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
            }, Boolean::booleanValue, x -> "could not read " + topic + " to its end offsets " + ends + " within 2 minutes");
        }
        return records;
    }

    /** False if the topic did not appear within {@code wait}. */
    private static boolean assignFromBeginning(KafkaConsumer<byte[], byte[]> consumer, String topic, Duration wait) {
        try {
            Waits.await("topic " + topic + " exists", wait, POLL).until(() -> {
                List<PartitionInfo> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(5));
                if (partitions == null || partitions.isEmpty()) {
                    return false;
                }
                List<TopicPartition> assigned = partitions.stream()
                        .map(p -> new TopicPartition(p.topic(), p.partition()))
                        .collect(Collectors.toList());
                consumer.assign(assigned);
                consumer.seekToBeginning(assigned);
                return true;
            });
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }

    /** What is left of {@code deadline} since {@code startedNanos} (at least a millisecond: one more look). */
    private static Duration left(Duration deadline, long startedNanos) {
        Duration left = deadline.minusNanos(System.nanoTime() - startedNanos);
        return left.compareTo(READ_AGAIN) < 0 ? READ_AGAIN : left;
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, IsolationLevel isolation) {
        return new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.CLIENT_ID_CONFIG, "tideline-topic-reader-" + UUID.randomUUID(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString().toLowerCase(Locale.ROOT),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                // The broker auto-creates topics; a reader that looks too early must not create one
                // with the default partition count before the connector does.
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
