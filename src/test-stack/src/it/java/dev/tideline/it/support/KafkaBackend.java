package dev.tideline.it.support;

import dev.tideline.standin.Docker;
import dev.tideline.standin.StackLog;
import java.util.Optional;
import org.testcontainers.kafka.KafkaContainer;

/** The broker the stack uses: external, a Testcontainers broker, or a local child JVM. */
interface KafkaBackend {

    String bootstrapServers();

    void stop();

    /**
     * Stops the broker ({@code kill -9} when {@code hard}, else a clean shutdown) and starts it again
     * on the same ports with its data kept; returns once it answers. Only the local broker can.
     */
    default void restart(boolean hard) {
        throw new UnsupportedOperationException("the broker at " + bootstrapServers()
                + " is not started by the tests, so they cannot restart it");
    }

    /**
     * {@code KAFKA_BOOTSTRAP} if set; else a container where a Docker engine exists; else a KRaft
     * broker in a child JVM (the case on the team's machines, which have no Docker engine).
     */
    static KafkaBackend start(KafkaRuntime runtime, java.nio.file.Path workDir) {
        Optional<String> external = Optional.ofNullable(System.getenv("KAFKA_BOOTSTRAP")).filter(s -> !s.isBlank());
        if (external.isPresent()) {
            StackLog.info("using the external broker KAFKA_BOOTSTRAP=" + external.get());
            return new KafkaBackend() {
                @Override
                public String bootstrapServers() {
                    return external.get();
                }

                @Override
                public void stop() {
                    // Not ours to stop.
                }
            };
        }
        if (Docker.isAvailable()) {
            return ContainerBroker.start(runtime.version());
        }
        return LocalKafkaBroker.start(runtime, workDir.resolve("broker"));
    }

    /**
     * Testcontainers' apache/kafka image in KRaft mode. It advertises the port mapped on the host,
     * so the worker (a child JVM on this host, not in Docker) reaches it at localhost:<mapped port>.
     */
    final class ContainerBroker implements KafkaBackend {
        private final KafkaContainer container;

        private ContainerBroker(KafkaContainer container) {
            this.container = container;
        }

        /** The same Kafka version as the worker's runtime jars. */
        static ContainerBroker start(String kafkaVersion) {
            String image = "apache/kafka:" + kafkaVersion;
            KafkaContainer container = new KafkaContainer(image)
                    .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")
                    .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "true");
            container.start();
            StackLog.info("started Kafka container " + image + " at " + container.getBootstrapServers());
            return new ContainerBroker(container);
        }

        @Override
        public String bootstrapServers() {
            return container.getBootstrapServers();
        }

        @Override
        public void stop() {
            container.stop();
        }
    }
}
