package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** The shared stack itself: fast to start, a worker that loads plugins, topics that round-trip. */
class TestStackIT {

    @Test
    void startsWithinAMinuteAndServesRest() {
        TestStack stack = TestStack.shared();
        System.out.println("the shared stack started in " + stack.startupTime().toMillis() + " ms");

        assertThat(stack.startupTime()).isLessThan(Duration.ofSeconds(60));
        assertThat(stack.connectUrl()).startsWith("http://127.0.0.1:");
        // Kafka's own plugins, found by plugin.discovery=service_load like ours.
        assertThat(stack.rest().allPlugins()).contains("org.apache.kafka.connect.json.JsonConverter");
    }

    @Test
    void topicRoundTrip() throws Exception {
        TestStack stack = TestStack.shared();
        stack.createTopic("stack-it-roundtrip", 3);
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("stack-it-roundtrip", ("k" + i).getBytes(), ("v" + i).getBytes())).get();
            }
        }

        assertThat(TopicReader.readUntil(stack.bootstrapServers(), "stack-it-roundtrip", 10, Duration.ofSeconds(30))).hasSize(10);
        assertThat(TopicReader.readAll(stack.bootstrapServers(), "stack-it-roundtrip", Duration.ofSeconds(1))).hasSize(10);
        assertThat(TopicReader.readAll(stack.bootstrapServers(), "stack-it-no-such-topic", Duration.ofSeconds(1))).isEmpty();
    }

    @Test
    void killedWorkerComesBackOnTheSamePort() {
        TestStack stack = TestStack.shared();
        String url = stack.connectUrl();

        stack.killWorker();
        long started = System.nanoTime();
        stack.startWorker();
        System.out.println("worker restart took " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");

        assertThat(stack.connectUrl()).isEqualTo(url);
        assertThat(stack.rest().connectorPlugins()).isNotNull();
    }
}
