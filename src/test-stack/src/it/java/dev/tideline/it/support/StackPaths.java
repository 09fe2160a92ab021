package dev.tideline.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where the stack finds its inputs. Failsafe passes absolute paths as system properties (see
 * pom.xml); the defaults are relative to the project directory for IDE runs and the sandbox.
 */
final class StackPaths {
    private StackPaths() {
    }

    static Path property(String name, String defaultRelativeToProject) {
        String value = System.getProperty(name);
        return (value != null ? Path.of(value) : projectDir().resolve(defaultRelativeToProject)).toAbsolutePath();
    }

    /** The built plugin directory (the parent of {@code tideline-mongodb/}): what plugin.path gets. */
    static Path pluginDir() {
        Path dir = property("tideline.plugin.dir", "target/connect-plugin");
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("no plugin directory " + dir + ": run `mvn -DskipTests package` first");
        }
        return dir;
    }

    /**
     * The plugin.path entry holding MongoDB's official connector ({@code mongo-kafka-connect/}),
     * laid out by the build from official-connector/pom.xml.
     */
    static Path officialConnectorDir() {
        Path dir = property("tideline.official.connector", "target/official-connector/mongo-kafka-connect");
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException("no official connector directory " + dir + ": run `mvn -DskipTests package` first");
        }
        return dir.getParent();
    }

    /**
     * The Prometheus JMX exporter agent jar (laid out by the build from prometheus-agent/pom.xml), empty when the build
     * has not reached pre-integration-test (an IDE run): the worker then starts without {@code /metrics}.
     */
    static java.util.Optional<Path> prometheusAgent() {
        Path dir = property("tideline.prometheus.agent.dir", "target/prometheus-agent");
        if (!Files.isDirectory(dir)) {
            return java.util.Optional.empty();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("jmx_prometheus_javaagent-")).findFirst();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    /** {@code -javaagent:<agent>=127.0.0.1:<port>:<rules>}, empty without the agent jar. */
    static java.util.Optional<String> prometheusAgentOption(int port) {
        return prometheusAgent().map(agent -> "-javaagent:" + agent + "=127.0.0.1:" + port + ":" + prometheusRules());
    }

    /** The exporter rules users get (docs/metrics.md). */
    static Path prometheusRules() {
        return projectDir().resolve("monitoring/prometheus/tideline-jmx-exporter.yml");
    }

    static Path workerTemplate() {
        return projectDir().resolve("config/worker.properties");
    }

    static Path projectDir() {
        return Path.of(System.getProperty("tideline.project.dir", System.getProperty("user.dir"))).toAbsolutePath();
    }

    /** Empties {@code dir} so a run never sees the broker data or logs of the previous one. */
    static Path recreate(Path dir) {
        try {
            if (Files.exists(dir)) {
                try (Stream<Path> paths = Files.walk(dir)) {
                    for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                        Files.delete(p);
                    }
                }
            }
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot recreate " + dir, e);
        }
    }
}
