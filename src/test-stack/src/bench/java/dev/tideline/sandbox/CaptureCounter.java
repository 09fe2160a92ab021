package dev.tideline.sandbox;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Reads the change topics of one database ({@code <prefix>.<db>.<collection>}) in a thread of its
 * own: per collection, how many change records arrived and the highest generator change number seen
 * in them. Assigns the partitions itself (no consumer group), so topics that appear later cost no
 * rebalance and nothing is counted twice.
 */
final class CaptureCounter implements AutoCloseable {
    private static final long TOPIC_REFRESH_MS = 1000;

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topicPrefix;
    private final boolean bsonValues;
    private final ChangeGenerator generator;
    private final Map<String, AtomicLong> records = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> highestChange = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile RuntimeException failure;

    /** @param topicPrefix {@code <topic.prefix>.<db>.}; @param bsonValues whether the source writes output.format=bson */
    CaptureCounter(String bootstrapServers, String topicPrefix, boolean bsonValues, ChangeGenerator generator) {
        this.topicPrefix = topicPrefix;
        this.bsonValues = bsonValues;
        this.generator = generator;
        consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.CLIENT_ID_CONFIG, "tideline-sandbox-" + UUID.randomUUID(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        thread = new Thread(this::run, "sandbox-capture-counter");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            long nextRefresh = 0;
            while (true) {
                if (System.currentTimeMillis() >= nextRefresh) {
                    assignNewPartitions();
                    nextRefresh = System.currentTimeMillis() + TOPIC_REFRESH_MS;
                }
                if (consumer.assignment().isEmpty()) {
                    Thread.sleep(200);
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    // a delete may be followed by a tombstone (null value) for log compaction: not a second change;
                    // a copy's markers share the change topic (tl.kind=control): not changes either
                    org.apache.kafka.common.header.Header kind = record.headers().lastHeader(dev.tideline.event.EventHeaders.KIND);
                    boolean change = kind == null || dev.tideline.event.EventHeaders.KIND_CHANGE.equals(
                            new String(kind.value(), StandardCharsets.UTF_8));
                    if (record.value() != null && change) {
                        count(record);
                    }
                }
            }
        } catch (WakeupException | InterruptedException e) {
            // close() woke us up: the normal way out.
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            consumer.close(Duration.ofSeconds(2));
        }
    }

    private void assignNewPartitions() {
        Set<TopicPartition> assigned = new HashSet<>(consumer.assignment());
        List<TopicPartition> added = new ArrayList<>();
        for (Map.Entry<String, List<PartitionInfo>> topic : consumer.listTopics(Duration.ofSeconds(5)).entrySet()) {
            if (topic.getKey().startsWith(topicPrefix)) {
                topic.getValue().stream().map(p -> new TopicPartition(p.topic(), p.partition()))
                        .filter(tp -> !assigned.contains(tp)).forEach(added::add);
            }
        }
        if (!added.isEmpty()) {
            assigned.addAll(added);
            consumer.assign(assigned);
            consumer.seekToBeginning(added);
        }
    }

    private void count(ConsumerRecord<byte[], byte[]> record) {
        String collection = record.topic().substring(topicPrefix.length());
        records.computeIfAbsent(collection, c -> new AtomicLong()).incrementAndGet();
        ChangeEvent change = EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(
                bsonValues ? record.value() : new String(record.value(), StandardCharsets.UTF_8)));
        long number = changeNumber(collection, change);
        highestChange.computeIfAbsent(collection, c -> new AtomicLong()).accumulateAndGet(number, Math::max);
    }

    /** The generator's number of this change: stored in the document, or remembered for a delete. */
    private long changeNumber(String collection, ChangeEvent change) {
        if (change.isDelete()) {
            return generator.deleteNumber(collection, change.id());
        }
        BsonDocument document = change.document();
        BsonValue number = document == null ? null : document.get(ChangeGenerator.CHANGE_FIELD);
        return number != null && number.isNumber() ? number.asNumber().longValue() : 0;
    }

    long records(String collection) {
        AtomicLong count = records.get(collection);
        return count == null ? 0 : count.get();
    }

    /** The highest change number seen on the collection's topic; 0 before the first. */
    long highestChange(String collection) {
        AtomicLong n = highestChange.get(collection);
        return n == null ? 0 : n.get();
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
