package dev.tideline.it.support;

import dev.tideline.standin.StackLog;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One Connect distributed worker in a child JVM. Its properties are {@code config/worker.properties}
 * (the example users get) plus the test overrides below, so the example is exercised by every
 * test run. Restarts keep the port, the group and the storage topics: a restarted worker rejoins
 * the same Connect cluster, as after a crash in production.
 */
final class ConnectWorker {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final KafkaRuntime runtime;
    private final Path dir;
    private final String name;
    private final int port;
    /** JMX of the worker JVM, where Tideline's task MBeans live (ITs read metrics and health there). */
    private final int jmxPort;
    /** The Prometheus JMX exporter agent's /metrics port; -1 when the agent is not there (docs/metrics.md). */
    private final int metricsPort;
    private final Path propertiesFile;
    private ChildProcess process;

    ConnectWorker(KafkaRuntime runtime, Path workDir, int index, String bootstrapServers, String clusterName) {
        this(runtime, workDir, "worker-" + index, bootstrapServers, clusterName, exactlyOnceSourceSupport());
    }

    /** @param exactlyOnce the worker's {@code exactly.once.source.support}: every worker of a group must agree */
    ConnectWorker(KafkaRuntime runtime, Path workDir, String name, String bootstrapServers, String clusterName, String exactlyOnce) {
        this.runtime = runtime;
        this.name = name;
        this.dir = StackPaths.recreate(workDir.resolve(name));
        this.port = FreePorts.next();
        this.jmxPort = FreePorts.next();
        this.metricsPort = StackPaths.prometheusAgent().isPresent() ? FreePorts.next() : -1;
        this.propertiesFile = writeProperties(bootstrapServers, clusterName, exactlyOnce);
    }

    private Path writeProperties(String bootstrapServers, String clusterName, String exactlyOnce) {
        Properties properties = loadTemplate();
        properties.putAll(Map.of(
                "bootstrap.servers", bootstrapServers,
                "group.id", clusterName,
                "config.storage.topic", clusterName + "-configs",
                "offset.storage.topic", clusterName + "-offsets",
                "status.storage.topic", clusterName + "-status",
                "listeners", "http://127.0.0.1:" + port,
                "rest.advertised.host.name", "127.0.0.1",
                "rest.advertised.port", Integer.toString(port),
                // The BUILT plugin directory: a packaging mistake fails the tests, as it would fail users.
                // Next to it MongoDB's official connector, which the interop tests and benchmark run.
                "plugin.path", StackPaths.pluginDir() + "," + StackPaths.officialConnectorDir()));
        // service_load only finds plugins listed in META-INF/services: it proves ours are right.
        properties.put("plugin.discovery", "service_load");
        // Tests read what they wrote within seconds, not after the production default of 60 s.
        properties.put("offset.flush.interval.ms", "1000");
        // How long the group waits for a departed worker before reassigning its tasks (default 5 min).
        properties.put("scheduled.rebalance.max.delay.ms", "5000");
        // A worker restarted after kill -9 joins with a new member id; the group waits for the dead
        // one until its session expires (default 10 s). 6 s is the broker's minimum session timeout.
        properties.put("session.timeout.ms", "6000");
        properties.put("heartbeat.interval.ms", "1500");
        properties.put("exactly.once.source.support", exactlyOnce);
        Path file = dir.resolve("worker.properties");
        try (OutputStream out = Files.newOutputStream(file)) {
            properties.store(out, "config/worker.properties + test overrides (ConnectWorker)");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    private static Properties loadTemplate() {
        Path template = StackPaths.workerTemplate();
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(template)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the worker template " + template, e);
        }
        return properties;
    }

    /** {@code -Dtideline.eos=enabled|preparing|disabled} (default disabled); {@code true} means enabled. */
    private static String exactlyOnceSourceSupport() {
        String value = System.getProperty("tideline.eos", "disabled").trim().toLowerCase(java.util.Locale.ROOT);
        return value.equals("true") ? "enabled" : value;
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    /** {@code service:jmx:rmi:///jndi/rmi://127.0.0.1:<port>/jmxrmi}: the worker's MBean server. */
    String jmxUrl() {
        return "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi";
    }

    /** {@code http://127.0.0.1:<port>/metrics}: Tideline's MBeans as the exporter rules users get turn them into Prometheus metrics. */
    String metricsUrl() {
        if (metricsPort < 0) {
            throw new IllegalStateException("the worker runs without the Prometheus JMX exporter agent: no jar in "
                    + "target/prometheus-agent; run the build through pre-integration-test (mvn verify) first");
        }
        return "http://127.0.0.1:" + metricsPort + "/metrics";
    }

    /** The JMX options, and the exporter agent with our rules when it is there. */
    private List<String> jvmOptions() {
        List<String> options = new java.util.ArrayList<>(jmxOptions());
        StackPaths.prometheusAgentOption(metricsPort).filter(option -> metricsPort > 0).ifPresent(options::add);
        return options;
    }

    /**
     * Remote JMX on loopback only, without auth or TLS: a test-only setting (never on a shared host).
     * One port for the registry and the RMI server, so nothing else is opened.
     */
    private List<String> jmxOptions() {
        return List.of("-Dcom.sun.management.jmxremote.port=" + jmxPort,
                "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort,
                "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false",
                "-Dcom.sun.management.jmxremote.local.only=true");
    }

    boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Starts the JVM and waits until the worker has joined its group and serves REST requests. */
    void start() {
        if (isRunning()) {
            throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
        }
        long started = System.nanoTime();
        process = ChildProcess.startJava(name, runtime, "2g", jvmOptions(), dir, dir.resolve(name + ".log"),
                "org.apache.kafka.connect.cli.ConnectDistributed", propertiesFile.toString());
        awaitReady();
        StackLog.info(name + " answers at " + url() + " after " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
    }

    /**
     * GET /health (KIP-1017, Kafka 3.9+) answers 200 only once the worker has joined the group and
     * read the config topic; before that, requests such as PUT /connectors/x/config would fail.
     */
    private void awaitReady() {
        AtomicReference<String> last = new AtomicReference<>("no answer");
        try {
            Waits.await(name + " GET /health 200", START_TIMEOUT, Duration.ofMillis(250)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException(name + " exited during start-up\n" + process.diagnostics(80));
                }
                try {
                    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url() + "/health"))
                            .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() == 200) {
                        return true;
                    }
                    last.set(response.statusCode() + " " + response.body());
                } catch (IOException e) {
                    last.set(e.toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for " + name, e);
                }
                return false;
            });
        } catch (ConditionTimeoutException e) {
            String diagnostics = process.diagnostics(80);
            process.stop();
            throw new IllegalStateException(name + " did not become ready within " + START_TIMEOUT
                    + " (last /health answer: " + last.get() + ")\n" + diagnostics, e);
        }
    }

    /** kill -9: no graceful group leave, no final offset flush. */
    void kill() {
        if (process != null) {
            process.kill();
        }
    }

    void stop() {
        if (process != null) {
            process.stop();
        }
    }
}
