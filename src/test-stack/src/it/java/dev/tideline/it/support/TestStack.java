package dev.tideline.it.support;

import dev.tideline.standin.StackLog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * A Kafka broker and a Connect distributed cluster shared by all integration tests of one JVM.
 * Starting one costs seconds, so it starts once, on the first {@link #shared()}, and a shutdown
 * hook stops every process it started (also when tests fail). Tests isolate themselves by using
 * their own connector, database, collection and topic names.
 *
 * <p>Worker 0 is "the" worker ({@link #connectUrl()}, {@link #rest()}); {@link #startExtraWorker()}
 * adds workers to the same Connect group for fail-over tests.
 */
public final class TestStack {
    private static TestStack shared;
    private static RuntimeException sharedStartFailure;

    private final Path workDir;
    private final KafkaRuntime runtime;
    private final KafkaBackend kafka;
    private final String clusterName;
    private final List<ConnectWorker> workers = new ArrayList<>();
    private final Admin admin;
    private ExactlyOnceCluster exactlyOnce;
    private Duration startupTime;

    private TestStack(Path workDir, KafkaRuntime runtime, KafkaBackend kafka) {
        this.workDir = workDir;
        this.runtime = runtime;
        this.kafka = kafka;
        // Unique per run so that an external KAFKA_BOOTSTRAP cluster never mixes two runs' Connect state.
        this.clusterName = "tideline-it-" + UUID.randomUUID().toString().substring(0, 8);
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
    }

    /** The stack of this JVM, started on the first call, in {@code -Dtideline.work.dir} (default target/it-work). */
    public static synchronized TestStack shared() {
        if (sharedStartFailure != null) {
            // Fail every later test fast with the original cause instead of starting a second stack
            // over the remains of the first one.
            throw new IllegalStateException("the shared test stack failed to start", sharedStartFailure);
        }
        if (shared == null) {
            try {
                shared = start(StackPaths.property("tideline.work.dir", "target/it-work"));
            } catch (RuntimeException e) {
                sharedStartFailure = e;
                throw e;
            }
        }
        return shared;
    }

    /**
     * Starts a stack of its own in {@code workDir} (emptied first); the sandbox uses this. A
     * shutdown hook stops it when the JVM exits.
     */
    public static TestStack start(Path workDir) {
        long started = System.nanoTime();
        LeftoverProcesses.killLeftovers(workDir);
        StackPaths.recreate(workDir);
        KafkaRuntime runtime = KafkaRuntime.locate();
        KafkaBackend kafka = KafkaBackend.start(runtime, workDir);
        long brokerMillis = Duration.ofNanos(System.nanoTime() - started).toMillis();
        TestStack stack = new TestStack(workDir, runtime, kafka);
        Runtime.getRuntime().addShutdownHook(new Thread(stack::stopAll, "tideline-stack-shutdown"));
        stack.startWorker();
        stack.startupTime = Duration.ofNanos(System.nanoTime() - started);
        StackLog.info(String.format("stack started in %d ms (broker %d ms): Kafka %s at %s, Connect at %s, work dir %s",
                stack.startupTime.toMillis(), brokerMillis, runtime.version(),
                kafka.bootstrapServers(), stack.connectUrl(), workDir));
        return stack;
    }

    /** How long {@link #start(Path)} took: broker (or external/container backend) plus worker 0. */
    public Duration startupTime() {
        return startupTime;
    }

    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    /** Worker 0's REST endpoint, {@code http://127.0.0.1:<port>}. */
    public String connectUrl() {
        return connectUrl(0);
    }

    public synchronized String connectUrl(int workerIndex) {
        return workers.get(workerIndex).url();
    }

    /** The JMX service URL of a worker's JVM (loopback, no auth): read Tideline's task MBeans there. */
    public synchronized String jmxUrl(int workerIndex) {
        return workers.get(workerIndex).jmxUrl();
    }

    /** A worker's Prometheus endpoint (the JMX exporter agent with monitoring/prometheus/tideline-jmx-exporter.yml). */
    public synchronized String metricsUrl(int workerIndex) {
        return workers.get(workerIndex).metricsUrl();
    }

    public ConnectRest rest() {
        return new ConnectRest(connectUrl());
    }

    public ConnectRest rest(int workerIndex) {
        return new ConnectRest(connectUrl(workerIndex));
    }

    public Path workDir() {
        return workDir;
    }

    /** Creates a topic with the broker's default replication factor (1 on the local broker). */
    public void createTopic(String name, int partitions) {
        try {
            admin.createTopics(List.of(new NewTopic(name, Optional.of(partitions), Optional.empty())))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                throw new IllegalStateException("topic " + name + " already exists: use a name unique to the test", e.getCause());
            }
            throw new IllegalStateException("cannot create topic " + name, e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("creating topic " + name + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        }
    }

    /**
     * After every test ({@link SharedStackExtension}): worker 0 runs again if a test killed it and failed
     * (or returned) before restarting it, so one failure cannot cascade into every later test.
     */
    static synchronized void restoreShared() {
        if (shared != null && !shared.workers.isEmpty() && !shared.workers.get(0).isRunning()) {
            System.out.println("TestStack: worker 0 was left stopped by the test that ended; starting it again");
            shared.workers.get(0).start();
        }
    }

    /** kill -9 of every running worker of the stack; returns once they have exited. */
    public synchronized void killWorker() {
        for (ConnectWorker worker : workers) {
            if (worker.isRunning()) {
                worker.kill();
            }
        }
    }

    /** kill -9 of one worker (0 is the first), e.g. to make the group move its tasks. */
    public synchronized void killWorker(int index) {
        workers.get(index).kill();
    }

    /**
     * Starts worker 0 (again, after {@link #killWorker()}): same port, group and storage topics.
     * Returns once it serves REST requests.
     */
    public synchronized void startWorker() {
        if (workers.isEmpty()) {
            workers.add(new ConnectWorker(runtime, workDir, 0, kafka.bootstrapServers(), clusterName));
        }
        workers.get(0).start();
    }

    /** Restarts a killed worker with the given index. */
    public synchronized void startWorker(int index) {
        workers.get(index).start();
    }

    /** Adds a worker to the same Connect group; returns its index for {@link #killWorker(int)}. */
    public synchronized int startExtraWorker() {
        int index = workers.size();
        ConnectWorker worker = new ConnectWorker(runtime, workDir, index, kafka.bootstrapServers(), clusterName);
        workers.add(worker);
        worker.start();
        return index;
    }

    /**
     * Restarts the broker with its data kept ({@code kill -9} first when {@code hard}); workers and
     * clients reconnect by themselves. Only for a broker the stack started.
     */
    public void restartBroker(boolean hard) {
        kafka.restart(hard);
    }

    /**
     * A second Connect cluster on the same broker whose worker runs with
     * {@code exactly.once.source.support=enabled} (its own group and storage topics: all workers of a
     * group must agree on the setting). Started on the first call.
     */
    public synchronized ExactlyOnceCluster exactlyOnceCluster() {
        if (exactlyOnce == null) {
            exactlyOnce = new ExactlyOnceCluster(new ConnectWorker(runtime, workDir, "worker-eos", kafka.bootstrapServers(),
                    clusterName + "-eos", "enabled"));
        }
        return exactlyOnce;
    }

    /** Workers first (a graceful SIGTERM lets them leave the group), then the broker. */
    private synchronized void stopAll() {
        List<ConnectWorker> all = new ArrayList<>(workers);
        if (exactlyOnce != null) {
            all.add(exactlyOnce.worker());
        }
        for (ConnectWorker worker : all) {
            try {
                worker.stop();
            } catch (RuntimeException e) {
                // Keep stopping the others: a hook that gives up leaves processes behind.
                System.err.println("[tideline-stack] could not stop a worker: " + e);
            }
        }
        admin.close(Duration.ofSeconds(5));
        kafka.stop();
    }
}
