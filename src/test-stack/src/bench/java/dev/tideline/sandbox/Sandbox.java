package dev.tideline.sandbox;

import dev.tideline.it.support.ConnectRest;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A local playground: broker + Connect worker (the integration tests' stack), a source MongoDB
 * ({@code MONGO_URI} or an in-process mongo-java-server with oplog) with a trickle of changes into
 * {@code shop}, the example source connector ({@code config/source-example.json}), a destination
 * MongoDB (a second stand-in, or database {@code shop_replica} of {@code MONGO_URI}) and the example
 * sink ({@code config/sink-example.json}). Prints once a second, per collection, source and
 * destination side by side: changes written, records captured and capture lag, then document counts
 * on both sides and apply lag; then each component's state.
 *
 * <p>Run it with {@code ./sandbox [--seconds N]}. Ctrl-C stops everything it started (shutdown hooks
 * of the stack and of this class). With {@code --seconds N} it stops writing after N seconds, waits
 * for the destination to converge, and exits 1 unless every component ran, every collection was
 * captured and applied, and the destination ended equal to the source.
 *
 * <p>Each component is a {@link Part}: one more (a gateway, say) is one more entry in {@code parts}.
 */
public final class Sandbox {
    private static final List<String> COLLECTIONS = List.of("orders", "customers", "products");
    private static final long WRITE_EVERY_MILLIS = 150;
    private static final long CONVERGE_SECONDS = 60;
    private static final String VERIFY_CONNECTOR = "sandbox-verify";
    private static final long VERIFY_EVERY_MILLIS = 10_000;

    /** One running component of the sandbox, as the progress line shows it. */
    interface Part {
        /** Called once a second before {@link #status()}: a part that waits for something starts here. */
        default void tick() {
        }

        String status();

        /** Whether the part did its job, for the exit code of a timed run. */
        boolean healthy();
    }

    public static void main(String[] args) throws Exception {
        long seconds = parseSeconds(args);
        TestStack stack = TestStack.start(Path.of("target", "sandbox").toAbsolutePath());
        MongoFixture source = MongoFixture.withOplog();
        MongoFixture destination = MongoFixture.withOplog();
        System.out.println("Source MongoDB: " + source + "; destination MongoDB: " + destination);
        System.out.println("Prometheus metrics of the worker (docs/metrics.md): " + stack.metricsUrl(0));
        Map<String, String> values = Map.of("MONGO_URI", source.uri(), "destination.uri", destination.uri());
        ConnectorExample sourceExample = ConnectorExample.load(Path.of("config", "source-example.json"), values);
        ConnectorExample sinkExample = ConnectorExample.load(Path.of("config", "sink-example.json"), values);
        ConnectRest rest = stack.rest();
        requirePlugins(rest, sourceExample, sinkExample);

        String database = sourceExample.config().get("database.include");
        ChangeGenerator generator = new ChangeGenerator(source.client().getDatabase(database), COLLECTIONS);
        // an application's collections exist before capture is set up; the source lists them when it
        // starts (collections created later are found at the next collection.discovery.interval.ms)
        generator.createCollections();
        DestinationProbe probe = new DestinationProbe(source.client().getDatabase(database),
                destination.client().getDatabase(sinkExample.config().get("database")));
        CaptureCounter counter = new CaptureCounter(stack.bootstrapServers(),
                sourceExample.config().get("topic.prefix") + "." + database + ".",
                "bson".equals(sourceExample.config().get("output.format")), generator);

        ConnectorPart sourcePart = new ConnectorPart("source", rest, sourceExample, () -> true);
        // The sink follows topics.regex and starts at once: its example sets
        // consumer.override.metadata.max.age.ms=5000, so a change topic the source creates later is
        // subscribed within seconds (the default refresh is every 5 minutes).
        ConnectorPart sinkPart = new ConnectorPart("sink", rest, sinkExample, () -> true);
        List<Part> parts = new ArrayList<>();
        parts.add(new CollectionsPart(generator, counter, probe));
        parts.add(sourcePart);
        parts.add(sinkPart);
        GatewayPart gateway = GatewayPart.start(Path.of("config", "fanout-gateway.properties"), stack.bootstrapServers(),
                ChangeGenerator.TENANTS.get(0), COLLECTIONS.stream().map(c -> database + "." + c + "." + ChangeGenerator.TENANTS.get(0)).toList());
        parts.add(gateway);

        // a scheduled verify, for the status page's last-verify column (docs/verify.md)
        rest.putConnector(VERIFY_CONNECTOR, VerifyConnectorConfig.of(source.uri(), destination.uri(), database,
                sinkExample.config().get("database"), VERIFY_EVERY_MILLIS));
        StatusPage statusPage = StatusPage.start(stack.metricsUrl(0), stack.jmxUrl(0), sourceExample.name(), VERIFY_CONNECTOR,
                source.client().getDatabase(database), destination.client().getDatabase(sinkExample.config().get("database")));
        System.out.println("Replication status page (per collection: lag, copy, counts, last verify): " + statusPage.url());

        ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
        // Registered after the stack's hook, but hooks run concurrently: this one only stops our own threads and clients.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            writer.shutdownNow();
            statusPage.close();
            counter.close();
            gateway.close();
            source.close();
            destination.close();
        }, "sandbox-shutdown"));
        writer.scheduleWithFixedDelay(() -> writeOrReport(generator), 0, WRITE_EVERY_MILLIS, TimeUnit.MILLISECONDS);

        long end = seconds > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds) : Long.MAX_VALUE;
        while (System.nanoTime() < end) {
            Thread.sleep(1000);
            printProgress(parts, counter);
        }
        writer.shutdown();
        writer.awaitTermination(10, TimeUnit.SECONDS);
        System.out.println("Writes stopped; waiting up to " + CONVERGE_SECONDS + " s for the destination to equal the source");
        long stopped = System.nanoTime();
        boolean converged = false;
        while (!converged && System.nanoTime() - stopped < TimeUnit.SECONDS.toNanos(CONVERGE_SECONDS)) {
            Thread.sleep(1000);
            printProgress(parts, counter);
            converged = COLLECTIONS.stream().allMatch(c -> counter.highestChange(c) == generator.written(c))
                    && probe.sameDocuments(COLLECTIONS);
        }
        System.out.println(converged
                ? String.format("Converged: the destination equals the source %.1f s after the last write", (System.nanoTime() - stopped) / 1e9)
                : "NOT converged within " + CONVERGE_SECONDS + " s of the last write");
        boolean healthy = parts.stream().allMatch(Part::healthy);
        System.exit(converged && healthy ? 0 : 1);
    }

    private static void printProgress(List<Part> parts, CaptureCounter counter) {
        counter.checkHealthy();
        StringBuilder line = new StringBuilder(LocalTime.now().truncatedTo(ChronoUnit.SECONDS).toString());
        for (Part part : parts) {
            part.tick();
            line.append(" | ").append(part.status());
        }
        System.out.println(line);
    }

    private static void requirePlugins(ConnectRest rest, ConnectorExample... examples) {
        List<String> plugins = rest.connectorPlugins();
        for (ConnectorExample example : examples) {
            if (!plugins.contains(example.connectorClass())) {
                System.err.println("The worker has no " + example.connectorClass() + " (plugin dir target/connect-plugin): "
                        + "is the connector built? Plugins found: " + plugins);
                System.exit(1);
            }
        }
    }

    /** An exception would silently end a scheduled task; print it and keep writing. */
    private static void writeOrReport(ChangeGenerator generator) {
        try {
            generator.writeOne();
        } catch (RuntimeException e) {
            System.err.println(LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + " write failed: " + e);
        }
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

    /** Per collection: written, captured (records) and capture lag; source and destination documents and apply lag. */
    private record CollectionsPart(ChangeGenerator generator, CaptureCounter counter, DestinationProbe probe) implements Part {
        @Override
        public String status() {
            List<String> segments = new ArrayList<>();
            for (String c : COLLECTIONS) {
                segments.add(String.format("%s written %d captured %d lag %.1fs · docs src %d dst %d lag %.1fs", c,
                        generator.written(c), counter.records(c), generator.lagSeconds(c, counter.highestChange(c)),
                        probe.sourceCount(c), probe.destinationCount(c), generator.lagSeconds(c, probe.highestApplied(c))));
            }
            return String.join(" | ", segments);
        }

        @Override
        public boolean healthy() {
            return COLLECTIONS.stream().allMatch(c -> counter.highestChange(c) > 0 && probe.highestApplied(c) > 0);
        }
    }

    /** A connector from config/, registered once its start condition holds; shows "name STATE [task states]". */
    private static final class ConnectorPart implements Part {
        private final String label;
        private final ConnectRest rest;
        private final ConnectorExample example;
        private final BooleanSupplier startWhen;
        private boolean registered;
        private String lastState = "not started";

        ConnectorPart(String label, ConnectRest rest, ConnectorExample example, BooleanSupplier startWhen) {
            this.label = label;
            this.rest = rest;
            this.example = example;
            this.startWhen = startWhen;
            tick();
        }

        @Override
        public void tick() {
            if (!registered && startWhen.getAsBoolean()) {
                rest.putConnector(example.name(), example.config());
                registered = true;
                System.out.println(LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + " registered the " + label + " connector " + example.name());
            }
        }

        @Override
        public String status() {
            if (!registered) {
                return label + " waiting";
            }
            try {
                var status = rest.status(example.name());
                StringBuilder tasks = new StringBuilder();
                status.path("tasks").forEach(t -> tasks.append(tasks.length() == 0 ? "" : ",").append(t.path("state").asText()));
                lastState = status.path("connector").path("state").asText() + " [" + tasks + "]";
            } catch (RuntimeException e) {
                lastState = "status unavailable (" + e.getMessage() + ")";
            }
            return label + " " + lastState;
        }

        @Override
        public boolean healthy() {
            return lastState.startsWith("RUNNING [RUNNING") && !lastState.contains("FAILED");
        }
    }
}
