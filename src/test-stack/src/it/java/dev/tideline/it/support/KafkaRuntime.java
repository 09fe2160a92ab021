package dev.tideline.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The Kafka 4.x jars (broker + Connect runtime) that Maven copies into {@code target/kafka-runtime}
 * at {@code package}, and how to start a JVM on them. They are kept off the test classpath on
 * purpose: we compile and test against the 3.6 client API, the children run the real 4.x server.
 */
final class KafkaRuntime {
    private final Path jarDir;
    private final String version;

    private KafkaRuntime(Path jarDir, String version) {
        this.jarDir = jarDir;
        this.version = version;
    }

    /** From {@code -Dtideline.kafka.runtime} (set by failsafe), else {@code target/kafka-runtime}. */
    static KafkaRuntime locate() {
        Path dir = StackPaths.property("tideline.kafka.runtime", "target/kafka-runtime");
        return new KafkaRuntime(dir, version(dir));
    }

    /** The Kafka version of the runtime jars, e.g. 4.3.1. */
    String version() {
        return version;
    }

    private static String version(Path dir) {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("connect-runtime-") && n.endsWith(".jar"))
                    .map(n -> n.substring("connect-runtime-".length(), n.length() - ".jar".length()))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no connect-runtime jar in " + dir
                            + ": run `mvn -DskipTests package` first"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir + ": run `mvn -DskipTests package` first", e);
        }
    }

    /**
     * The JVM running the tests, so children use the same Java version. Their GC is the serial one
     * (least memory and threads on a small machine running many of them) unless
     * {@code -Dtideline.child.gc.opts=...} names others (separated by commas or spaces), e.g. Kafka's own scripts' G1 settings for a
     * benchmark that should see the worker as users run it.
     */
    List<String> javaCommand(String heap, Path log4j2Config) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new java.util.ArrayList<>(List.of(java, "-Xmx" + heap));
        String gc = System.getProperty("tideline.child.gc.opts", "").trim();
        command.addAll(gc.isEmpty() ? List.of("-XX:+UseSerialGC") : List.of(gc.split("[,\\s]+")));
        command.add("-Dlog4j2.configurationFile=" + log4j2Config.toUri());
        command.addAll(List.of("-cp", jarDir.toAbsolutePath() + "/*"));
        return command;
    }

    /**
     * Kafka 4 logs through log4j2. One file per child in the work dir; the noisy Kafka, Jetty and
     * Jersey internals at WARN, our connector at INFO, and the few Connect classes that explain
     * rebalances and task failures at INFO because they are what one reads after a failed test.
     */
    Path writeLog4j2Config(Path configFile, Path logFile) {
        String config = String.join("\n",
                "status = warn",
                "appender.file.type = File",
                "appender.file.name = FILE",
                "appender.file.append = true",
                "appender.file.fileName = " + logFile.toAbsolutePath(),
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = [%d] %p [%t] %m (%c)%n",
                "rootLogger.level = INFO",
                "rootLogger.appenderRef.file.ref = FILE",
                logger("kafka", "WARN"),
                logger("org.apache.kafka", "WARN"),
                logger("state.change.logger", "WARN"),
                logger("org.eclipse.jetty", "WARN"),
                logger("org.glassfish", "WARN"),
                logger("org.reflections", "ERROR"),
                logger("org.mongodb.driver", "WARN"),
                logger("org.apache.kafka.connect.runtime.distributed.DistributedHerder", "INFO"),
                logger("org.apache.kafka.connect.runtime.WorkerTask", "INFO"),
                logger("org.apache.kafka.connect.runtime.Worker", "INFO"),
                logger("dev.tideline", "INFO"),
                "");
        try {
            Files.writeString(configFile, config);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + configFile, e);
        }
        return configFile;
    }

    private static String logger(String name, String level) {
        String id = name.replace('.', '_');
        return "logger." + id + ".name = " + name + "\nlogger." + id + ".level = " + level;
    }
}
