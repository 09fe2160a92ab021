package dev.tideline.bench;

import dev.tideline.event.Namespace;
import dev.tideline.it.support.TestStack;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.standin.MongoFixture;
import dev.tideline.standin.TcpProxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The initial copy of one collection by 1, 2 and 4 tasks, in one run ({@code mvn -B -Pcopy-bench verify};
 * not a test): each on a fresh stand-in holding the same documents, written before the connector with
 * the oplog off (a copy is the only way to read them), with {@code backfill.split.min.documents=1} so
 * that every run with more than one task splits the copy. Prints, per task count: the time from the
 * connector's creation to the last copied document in Kafka, the rate from the first read of the
 * collection, and the time until the switch to streaming is committed (the split copy's end: every
 * chunk's offset committed, then the complete marker).
 *
 * <p>An untimed warm-up copy with each task count comes first (the worker's and the stand-in's code is
 * compiled by then, so the first measured run is not penalised); then {@code copy.bench.runs} rounds,
 * each round starting with the next task count in turn, and the medians are printed.
 *
 * <p>Options (system properties): {@code copy.bench.docs} (500,000 documents of 1 KB),
 * {@code copy.bench.tasks} (1,2,4), {@code copy.bench.runs} (3), {@code copy.bench.latency.ms} (0: the connector
 * reaches the stand-in through a {@link TcpProxy} that holds each request back that long, as a distant MongoDB
 * would: a copy then waits on round trips rather than on these shared cores), {@code copy.bench.warmup} (documents of the
 * warm-up copies, 100,000; 0: none), {@code copy.bench.partitions} (the topic's partitions, 4),
 * {@code copy.bench.out} (target/copy-bench). The worker commits offsets every second (the test stack's
 * {@code offset.flush.interval.ms}), which bounds how late a split copy starts on the other tasks and ends.
 */
public final class CopyTasksBenchmark {
    private static final Duration STALL = Duration.ofSeconds(90);
    private static final long LATENCY_MS = Long.getLong("copy.bench.latency.ms", 0);

    private CopyTasksBenchmark() {
    }

    record Run(int tasks, long copiedMs, double docsPerSecond, long streamingMs) {
    }

    /**
     * What one run of the benchmark copies.
     *
     * @param warmup documents of the untimed warm-up copy with each task count (0: none)
     */
    record Options(int docs, int partitions, List<Integer> taskCounts, int rounds, int warmup) {
        static Options fromSystemProperties() {
            return new Options(Integer.getInteger("copy.bench.docs", 500_000), Integer.getInteger("copy.bench.partitions", 4),
                    Arrays.stream(System.getProperty("copy.bench.tasks", "1,2,4").split(",")).map(String::trim).map(Integer::parseInt).toList(),
                    Integer.getInteger("copy.bench.runs", 3), Integer.getInteger("copy.bench.warmup", 100_000));
        }
    }

    /** The table, and whether every copy succeeded. */
    record Result(String table, boolean ok) {
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.fromSystemProperties();
        Path out = Path.of(System.getProperty("copy.bench.out", "target/copy-bench")).toAbsolutePath();
        Files.createDirectories(out);
        TestStack stack = TestStack.start(out.resolve("stack"));
        Result result = measure(stack, options);
        System.out.println();
        System.out.println(result.table());
        Files.writeString(out.resolve("results.txt"), result.table());
        System.exit(result.ok() ? 0 : 1);
    }

    /** Runs the copies on {@code stack} (the benchmark's own, or the tests' shared one for the smoke test). */
    static Result measure(TestStack stack, Options options) {
        int docs = options.docs();
        int partitions = options.partitions();
        List<Integer> taskCounts = options.taskCounts();
        int rounds = options.rounds();
        BenchContext.log("copy benchmark: " + docs + " documents of " + BenchDocs.BYTES + " bytes, tasks " + taskCounts + ", topic of "
                + partitions + " partitions, " + LATENCY_MS + " ms added to each request; "
                + Runtime.getRuntime().availableProcessors() + " cores");
        Map<Integer, List<Run>> runs = new java.util.TreeMap<>();
        boolean ok = true;
        try (TopicCounter topics = new TopicCounter(stack.bootstrapServers())) {
            if (options.warmup() > 0) {
                for (int tasks : taskCounts) {
                    BenchContext.log("warm-up (not measured):");
                    copy(stack, topics, options.warmup(), tasks, partitions);
                }
            }
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < taskCounts.size(); i++) {
                    int tasks = taskCounts.get((i + round) % taskCounts.size()); // each round starts with the next count
                    try {
                        runs.computeIfAbsent(tasks, t -> new ArrayList<>()).add(copy(stack, topics, docs, tasks, partitions));
                    } catch (RuntimeException e) {
                        ok = false;
                        BenchContext.log("FAILED with " + tasks + " task(s): " + e);
                    }
                }
            }
        }
        StringBuilder table = new StringBuilder(String.format("Initial copy of one collection (%,d x %d B) on %d cores, %d ms added to "
                        + "each request to MongoDB, medians of %d run(s)%n", docs, BenchDocs.BYTES, Runtime.getRuntime().availableProcessors(),
                LATENCY_MS, rounds));
        table.append(String.format("%-6s %14s %16s %18s %10s  %s%n", "tasks", "copied (ms)", "docs/s", "streaming at (ms)", "vs 1 task",
                "docs/s of each run"));
        double base = runs.containsKey(1) ? median(runs.get(1).stream().mapToDouble(Run::docsPerSecond).toArray()) : Double.NaN;
        for (Map.Entry<Integer, List<Run>> e : runs.entrySet()) {
            List<Run> rs = e.getValue();
            double rate = median(rs.stream().mapToDouble(Run::docsPerSecond).toArray());
            table.append(String.format("%-6d %14.0f %16.0f %18.0f %9.2fx  %s%n", e.getKey(),
                    median(rs.stream().mapToDouble(Run::copiedMs).toArray()), rate,
                    median(rs.stream().mapToDouble(Run::streamingMs).toArray()), rate / base,
                    rs.stream().map(r -> Long.toString(Math.round(r.docsPerSecond()))).toList()));
        }
        return new Result(table.toString(), ok);
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        java.util.Arrays.sort(v);
        return v.length == 0 ? Double.NaN : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static Run copy(TestStack stack, TopicCounter topics, int docs, int tasks, int partitions) {
        FirstReadBackend backend = new FirstReadBackend();
        try (MongoFixture mongo = MongoFixture.inProcessOplogAfter(backend, client -> BenchContext.fill(client, docs));
             TcpProxy proxy = new TcpProxy(mongo.port())) {
            proxy.delayRequests(LATENCY_MS);
            String name = "copy-" + tasks + "-tasks-" + System.currentTimeMillis() % 100_000;
            String topic = ConnectorConfigs.topic(name);
            stack.createTopic(topic, partitions);
            Map<String, String> config = ConnectorConfigs.source(Contender.TIDELINE,
                    LATENCY_MS > 0 ? proxy.mongoUri() : mongo.uri(), name, new ConnectorConfigs.CopyExisting());
            config.put("tasks.max", Integer.toString(tasks));
            config.put("backfill.split.min.documents", "1");
            config.put("resnapshot.marker.partitions", Integer.toString(partitions));
            long start = System.nanoTime();
            stack.rest().putConnector(name, config);
            try {
                // the copies, plus one begin marker per partition (the complete markers come after the last copy)
                Progress.Result r = Progress.await(tasks + " task(s) copying " + docs + " documents", start, () -> topics.count(topic),
                        docs + partitions, STALL, () -> null, null, 0);
                long firstRead = backend.firstReadNanos();
                double rate = firstRead == 0 ? Double.NaN : dev.tideline.bench.Stats.perSecond(docs, r.endNanos() - firstRead);
                Namespace ns = new Namespace(ConnectorConfigs.DB, ConnectorConfigs.COLL);
                long deadline = System.nanoTime() + STALL.toNanos();
                while (true) {
                    Optional<SourceOffset> o = stack.rest().sourceOffset(name, ns);
                    if (o.isPresent() && o.get().phase() == SourceOffset.Phase.STREAM) {
                        break;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the copy with " + tasks + " task(s) did not switch to streaming");
                    }
                    Progress.sleep(100);
                }
                long streamingMs = (System.nanoTime() - start) / 1_000_000;
                Run run = new Run(tasks, r.elapsed().toMillis(), rate, streamingMs);
                BenchContext.log(String.format("%d task(s): %,d documents in Kafka after %d ms (%.0f docs/s from the first read), "
                        + "streaming committed after %d ms", tasks, docs, run.copiedMs(), rate, streamingMs));
                return run;
            } finally {
                stack.rest().deleteConnector(name);
                Progress.sleep(2_000);
            }
        }
    }
}
