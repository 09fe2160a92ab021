package dev.tideline.standin;

import org.testcontainers.DockerClientFactory;

/** Whether Testcontainers can reach a Docker engine; probed once per JVM (a failed probe costs seconds). */
public final class Docker {
    private static Boolean available;

    private Docker() {
    }

    public static synchronized boolean isAvailable() {
        if (available == null) {
            available = DockerClientFactory.instance().isDockerAvailable();
            StackLog.info(available ? "Docker engine found: Testcontainers backends are used unless MONGO_URI / KAFKA_BOOTSTRAP are set"
                    : "no Docker engine: using the in-process MongoDB stand-in and a child-JVM Kafka broker");
        }
        return available;
    }
}
