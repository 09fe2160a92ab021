package dev.tideline.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real KRaft broker (combined broker + controller, one node) in a child JVM, bound to
 * 127.0.0.1 on free ports, with every internal topic at replication factor 1.
 */
final class LocalKafkaBroker implements KafkaBackend {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaRuntime runtime;
    private final Path dir;
    private final Path config;
    private final String bootstrapServers;
    private ChildProcess process;

    private LocalKafkaBroker(KafkaRuntime runtime, Path dir, Path config, String bootstrapServers) {
        this.runtime = runtime;
        this.dir = dir;
        this.config = config;
        this.bootstrapServers = bootstrapServers;
    }

    static LocalKafkaBroker start(KafkaRuntime runtime, Path dir) {
        StackPaths.recreate(dir);
        int brokerPort = FreePorts.next();
        int controllerPort = FreePorts.next();
        String bootstrap = "127.0.0.1:" + brokerPort;
        Path config = writeServerProperties(dir, brokerPort, controllerPort);
        format(runtime, dir, config);
        LocalKafkaBroker broker = new LocalKafkaBroker(runtime, dir, config, bootstrap);
        broker.launch();
        return broker;
    }

    /** Starts the broker JVM on the formatted storage and waits until it answers. */
    private void launch() {
        process = ChildProcess.startJava("broker", runtime, "1g", dir, dir.resolve("broker.log"),
                "kafka.Kafka", config.toString());
        awaitReady();
    }

    /** Same ports, same log.dirs: topics, committed offsets and transactions survive, as on a real restart. */
    @Override
    public synchronized void restart(boolean hard) {
        if (hard) {
            process.kill();
        } else {
            process.stop();
        }
        launch();
    }

    private static Path writeServerProperties(Path dir, int brokerPort, int controllerPort) {
        String properties = String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.bootstrap.servers=127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=" + dir.resolve("data").toAbsolutePath(),
                "num.partitions=1",
                "default.replication.factor=1",
                "min.insync.replicas=1",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=5",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=5",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                // Tests create groups constantly; the default 3 s delay would be added to each.
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=true",
                "");
        Path file = dir.resolve("server.properties");
        try {
            Files.writeString(file, properties);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    /** {@code kafka-storage.sh format --standalone}: KRaft needs formatted storage before the first start. */
    private static void format(KafkaRuntime runtime, Path dir, Path config) {
        ChildProcess tool = ChildProcess.startJava("storage-format", runtime, "256m", dir, dir.resolve("storage-format.log"),
                "kafka.tools.StorageTool", "format", "--standalone",
                "--cluster-id", Uuid.randomUuid().toString(), "--config", config.toString());
        if (!tool.awaitExit(Duration.ofSeconds(60)) || tool.exitCode() != 0) {
            String diagnostics = tool.diagnostics(40);
            tool.kill();
            throw new IllegalStateException("formatting the KRaft storage failed\n" + diagnostics);
        }
    }

    /**
     * Ready once the broker answers a describeCluster on its client listener. The admin client
     * only starts once the port accepts connections: before that it logs a warning per retry.
     */
    private void awaitReady() {
        long started = System.nanoTime();
        AtomicReference<Exception> last = new AtomicReference<>(awaitPortOpen());
        Duration left = START_TIMEOUT.minusNanos(System.nanoTime() - started);
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000))) {
            // each describeCluster waits up to 2 s itself: probe again at once
            Waits.await("the broker answers describeCluster", left.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : left, Duration.ofMillis(1))
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException("the broker exited during start-up\n" + process.diagnostics(60));
                        }
                        try {
                            admin.describeCluster().nodes().get(2, TimeUnit.SECONDS);
                            return true;
                        } catch (ExecutionException | TimeoutException e) {
                            last.set(e);
                            return false;
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("interrupted while waiting for the broker", e);
                        }
                    });
            return;
        } catch (ConditionTimeoutException e) {
            String diagnostics = process.diagnostics(60);
            process.stop();
            throw new IllegalStateException("the broker did not answer within " + START_TIMEOUT
                    + " (last error: " + last.get() + ")\n" + diagnostics, e);
        }
    }

    /** Null once the port accepts a TCP connection, else the last connect error (start-up time out, or the process gone). */
    private Exception awaitPortOpen() {
        int port = Integer.parseInt(bootstrapServers.substring(bootstrapServers.lastIndexOf(':') + 1));
        AtomicReference<IOException> last = new AtomicReference<>();
        try {
            Waits.await("the broker's port " + port + " accepts connections", START_TIMEOUT, Duration.ofMillis(200)).until(() -> {
                if (!process.isAlive()) {
                    return true; // the describeCluster loop reports the exit with the broker's diagnostics
                }
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
                    last.set(null);
                    return true;
                } catch (IOException e) {
                    last.set(e);
                    return false;
                }
            });
        } catch (ConditionTimeoutException e) {
            // the last connect error is returned
        }
        return last.get();
    }

    @Override
    public String bootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public void stop() {
        process.stop();
    }
}
