package dev.tideline.it.fault;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The source offsets a worker has committed, read from its offsets topic directly: what a restarted
 * worker will find, readable while the worker is down (its REST API is not).
 */
final class OffsetsTopic {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One committed offset: the key's JSON ({@code ["connector", {partition}]}) and the offset map (null: a reset). */
    record Committed(String key, Map<String, Object> offset) {
    }

    private OffsetsTopic() {
    }

    /** Every offset committed for a connector, oldest first. */
    @SuppressWarnings("unchecked")
    static List<Committed> committed(String bootstrap, String connector) {
        Set<String> offsetTopics = new HashSet<>();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            for (String t : admin.listTopics().names().get()) {
                if (t.endsWith("-offsets")) {
                    offsetTopics.add(t);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot list the offsets topics", e);
        }
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<Committed> out = new ArrayList<>();
        String prefix = "[\"" + connector + "\"";
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            for (String topic : offsetTopics) {
                List<TopicPartition> parts = consumer.partitionsFor(topic).stream().map(i -> new TopicPartition(topic, i.partition())).toList();
                consumer.assign(parts);
                consumer.seekToBeginning(parts);
                Map<TopicPartition, Long> end = consumer.endOffsets(parts);
                while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        String key = r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8).replace(" ", "");
                        if (key.startsWith(prefix)) {
                            try {
                                out.add(new Committed(key, r.value() == null ? null : JSON.readValue(r.value(), Map.class)));
                            } catch (java.io.IOException e) {
                                throw new IllegalStateException("an offset of " + connector + " that is not JSON", e);
                            }
                        }
                    }
                }
            }
        }
        return out;
    }
}
