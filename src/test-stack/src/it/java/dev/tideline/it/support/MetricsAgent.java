package dev.tideline.it.support;

/**
 * The Prometheus JMX exporter agent with Tideline's rules (monitoring/prometheus), for JVMs the tests start besides the
 * Connect workers: the fanout gateway is scraped as users scrape it, with the same agent and the same rules file.
 */
public final class MetricsAgent {
    private MetricsAgent() {
    }

    /** A free loopback port for an agent's /metrics. */
    public static int freePort() {
        return FreePorts.next();
    }

    /** The JVM option serving /metrics on 127.0.0.1:{@code port}; fails when the build has not laid the agent out. */
    public static String option(int port) {
        return StackPaths.prometheusAgentOption(port).orElseThrow(() -> new IllegalStateException("no Prometheus JMX exporter "
                + "agent in target/prometheus-agent; run the build through pre-integration-test (mvn verify) first"));
    }
}
