package dev.tideline.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A local playground: broker + Connect worker (the integration tests' stack), a MongoDB
 * ({@code MONGO_URI} or an in-process mongo-java-server with oplog), the example source connector
 * from {@code config/source-example.json}, and a trickle of changes into {@code shop}. Prints, once
 * a second, per collection: changes written, records captured on its topic, and capture lag.
 *
 * <p>Run it with {@code ./sandbox [--seconds N]}. Ctrl-C stops everything it started (shutdown hooks
 * of the stack and of this class). With {@code --seconds N} it stops by itself and exits 1 unless
 * the connector ran and captured changes of every collection.
 */
public final class Sandbox {
    private static final String DATABASE = "shop";
    private static final List<String> COLLECTIONS = List.of("orders", "customers", "products");
    private static final long WRITE_EVERY_MILLIS = 150;

    public static void main(String[] args) throws Exception {
        long seconds = parseSeconds(args);
        TestStack stack = TestStack.start(Path.of("target", "sandbox").toAbsolutePath());
        MongoFixture mongo = MongoFixture.withOplog();
        System.out.println("MongoDB: " + mongo);

        JsonNode example = new ObjectMapper().readTree(Files.readString(Path.of("config", "source-example.json")));
        String name = example.path("name").asText();
        Map<String, String> config = connectorConfig(example.path("config"), mongo.uri());
        ConnectRest rest = stack.rest();
        String connectorClass = config.get("connector.class");
        if (!rest.connectorPlugins().contains(connectorClass)) {
            System.err.println("The worker has no " + connectorClass + " (plugin dir target/connect-plugin): "
                    + "is the connector built? Plugins found: " + rest.connectorPlugins());
            System.exit(1);
        }
        rest.putConnector(name, config);
        System.out.println("Registered connector " + name + " at " + stack.connectUrl() + "; Kafka at " + stack.bootstrapServers());

        ChangeGenerator generator = new ChangeGenerator(mongo.client().getDatabase(DATABASE), COLLECTIONS);
        CaptureCounter counter = new CaptureCounter(stack.bootstrapServers(), config.get("topic.prefix"));
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        // Registered after the stack's hook, but hooks run concurrently: this one only stops our own threads and client.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            scheduler.shutdownNow();
            counter.close();
            mongo.close();
        }, "sandbox-shutdown"));
        scheduler.scheduleWithFixedDelay(() -> writeOrReport(generator), 0, WRITE_EVERY_MILLIS, TimeUnit.MILLISECONDS);

        Progress progress = new Progress(generator, counter, rest, name, config.get("topic.prefix") + "." + DATABASE + ".");
        long end = seconds > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds) : Long.MAX_VALUE;
        while (System.nanoTime() < end) {
            Thread.sleep(1000);
            counter.checkHealthy();
            System.out.println(progress.line());
        }
        System.exit(progress.allCaptured() ? 0 : 1);
    }

    /** An exception would silently end a scheduled task; print it and keep writing. */
    private static void writeOrReport(ChangeGenerator generator) {
        try {
            generator.writeOne();
        } catch (RuntimeException e) {
            System.err.println(LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + " write failed: " + e);
        }
    }

    /** The example's config with {@code ${MONGO_URI}} replaced by the sandbox's MongoDB. */
    private static Map<String, String> connectorConfig(JsonNode configNode, String mongoUri) {
        Map<String, String> config = new LinkedHashMap<>();
        configNode.fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText().replace("${MONGO_URI}", mongoUri)));
        return config;
    }

    private static long parseSeconds(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--seconds") && i + 1 < args.length) {
                return Long.parseLong(args[i + 1]);
            }
            if (!args[i].isBlank()) {
                throw new IllegalArgumentException("usage: sandbox [--seconds N]; unknown argument " + args[i]);
            }
        }
        return 0;
    }

    /** One status line: per collection written/captured/lag, then the connector's state. */
    private static final class Progress {
        private final ChangeGenerator generator;
        private final CaptureCounter counter;
        private final ConnectRest rest;
        private final String connector;
        private final String topicPrefix;
        private String lastState = "UNKNOWN";

        Progress(ChangeGenerator generator, CaptureCounter counter, ConnectRest rest, String connector, String topicPrefix) {
            this.generator = generator;
            this.counter = counter;
            this.rest = rest;
            this.connector = connector;
            this.topicPrefix = topicPrefix;
        }

        String line() {
            StringBuilder line = new StringBuilder(LocalTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
            for (String collection : COLLECTIONS) {
                long captured = counter.captured(topicPrefix + collection);
                line.append(String.format(" | %s written %d captured %d lag %.1fs", collection,
                        generator.written(collection), captured, generator.lagSeconds(collection, captured)));
            }
            lastState = connectorState();
            return line.append(" | connector ").append(lastState).toString();
        }

        /** "RUNNING [RUNNING]": the connector's state, then its tasks'. */
        private String connectorState() {
            try {
                JsonNode status = rest.status(connector);
                StringBuilder tasks = new StringBuilder();
                status.path("tasks").forEach(t -> tasks.append(tasks.length() == 0 ? "" : ",").append(t.path("state").asText()));
                return status.path("connector").path("state").asText() + " [" + tasks + "]";
            } catch (RuntimeException e) {
                return "status unavailable (" + e.getMessage() + ")";
            }
        }

        boolean allCaptured() {
            boolean ok = lastState.startsWith("RUNNING [RUNNING");
            for (String collection : COLLECTIONS) {
                ok &= counter.captured(topicPrefix + collection) > 0;
            }
            return ok;
        }
    }
}
