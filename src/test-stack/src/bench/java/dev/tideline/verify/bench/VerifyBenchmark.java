package dev.tideline.verify.bench;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.InsertManyOptions;
import com.mongodb.client.model.Updates;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.report.ReportReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.bson.BsonDocument;
import org.bson.BsonObjectId;
import org.bson.types.ObjectId;

/**
 * Verify's throughput and memory on a large collection, next to a raw read of both sides, in one run
 * ({@code mvn -B -Pverify-bench verify}; not a test). Two stand-in MongoDBs in this JVM hold the same
 * documents, with some deleted, changed and added at the destination; the raw read and verify each run
 * in a child JVM with the same small heap, so their figures are theirs alone. The stand-ins cannot hash
 * ranges, so verify reads and compares both sides here (client hashing): that is the path measured.
 *
 * <p>Options (system properties): {@code verify.bench.docs} (1,000,000), {@code verify.bench.bytes}
 * (document size, 256), {@code verify.bench.differences} (100, split between missing, changed and
 * extra), {@code verify.bench.childHeap} (256m), {@code verify.bench.runs} (rounds of a raw read then verify, 3;
 * medians are printed), {@code verify.bench.out} (target/verify-bench),
 * {@code verify.bench.childOpts} (space-separated JVM options for both children; {@code {name}} becomes the
 * child's name, e.g. {@code -XX:StartFlightRecording=settings=profile,filename=target/verify-bench/{name}.jfr}).
 */
public final class VerifyBenchmark {
    private static final String DB = "bench";
    private static final String COLL = "orders";
    private static final int LOAD_BATCH = 5_000;

    private VerifyBenchmark() {
    }

    /** What one run of the benchmark does (the system properties above). */
    record Options(int docs, int bytes, int differences, String childHeap, int runs, Path out) {
        static Options fromSystemProperties() {
            return new Options(Integer.getInteger("verify.bench.docs", 1_000_000), Integer.getInteger("verify.bench.bytes", 256),
                    Integer.getInteger("verify.bench.differences", 100), System.getProperty("verify.bench.childHeap", "256m"),
                    Integer.getInteger("verify.bench.runs", 3), Path.of(System.getProperty("verify.bench.out", "target/verify-bench")));
        }
    }

    public static void main(String[] args) throws Exception {
        System.out.print(run(Options.fromSystemProperties()));
    }

    /** Runs the benchmark; returns its table, also written to {@code results.txt} in {@code options.out()}. */
    static String run(Options options) throws IOException, InterruptedException {
        int docs = options.docs();
        int bytes = options.bytes();
        int differences = options.differences();
        String childHeap = options.childHeap();
        int runs = options.runs();
        Path out = options.out();
        Files.createDirectories(out);
        // replica sets reached with replicaSet=, as production MongoDB; loaded before their oplogs start, which verify
        // does not read, so the stand-ins' heap holds each document once
        long loadStart = System.nanoTime();
        CompletableFuture<MongoFixture> a = CompletableFuture.supplyAsync(
                () -> MongoFixture.inProcessOplogAfter(new AwaitingMemoryBackend(), c -> load(c, docs, bytes)));
        CompletableFuture<MongoFixture> b = CompletableFuture.supplyAsync(
                () -> MongoFixture.inProcessOplogAfter(new AwaitingMemoryBackend(), c -> load(c, docs, bytes)));
        try (MongoFixture sourceSet = a.join(); MongoFixture destinationSet = b.join()) {
            String source = sourceSet.uri();
            String destination = destinationSet.uri();
            Map<FindingKind, Integer> expected = alter(destination, docs, bytes, differences);
            System.gc();
            long usedMb = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20;
            System.out.printf("loaded %,d documents of ~%d B into each stand-in in %.0f s (stand-ins' heap ~%,d MB); destination "
                    + "altered: %s%n", docs, bytes, (System.nanoTime() - loadStart) / 1e9, usedMb, expected);

            // raw read and verify side by side, several times: the machine's load moves between runs
            List<Round> rounds = new ArrayList<>();
            for (int r = 1; r <= runs; r++) {
                Map<String, String> raw = child(out, "raw-read-" + r, childHeap, RawReadChild.class.getName(), source, destination, DB, COLL,
                        "1000");
                Path report = out.resolve("report-" + r + ".jsonl");
                Map<String, String> verify = child(out, "verify-" + r, childHeap, VerifyChild.class.getName(), "--source", source,
                        "--destination", destination, "--database", DB, "--hashing", "auto", "--rechecks", "1", "--recheck-delay", "0",
                        "--report", report.toString());
                Map<FindingKind, Integer> found = new EnumMap<>(FindingKind.class);
                ReportReader.read(report, f -> found.merge(f.kind(), 1, Integer::sum), x -> { });
                if (!found.equals(expected)) {
                    throw new AssertionError("verify found " + found + ", the benchmark altered " + expected);
                }
                List<String> lines = Files.readAllLines(report);
                rounds.add(new Round(raw, verify, BsonDocument.parse(lines.get(lines.size() - 1)), found));
            }
            String table = table(docs, bytes, childHeap, rounds, expected);
            Files.writeString(out.resolve("results.txt"), table);
            return table;
        }
    }

    private static void load(MongoClient c, int docs, int bytes) {
        MongoCollection<BsonDocument> coll = c.getDatabase(DB).getCollection(COLL, BsonDocument.class);
        for (int i = 0; i < docs; i += LOAD_BATCH) {
            coll.insertMany(BenchDocuments.batch(i, Math.min(docs, i + LOAD_BATCH), bytes), new InsertManyOptions().ordered(false));
        }
    }

    /** Deletes, changes and adds documents at the destination, spread over the collection; returns what verify must find. */
    private static Map<FindingKind, Integer> alter(String uri, int docs, int bytes, int differences) {
        int missing = differences * 2 / 5;
        int changed = differences * 3 / 10;
        int extra = differences - missing - changed;
        try (MongoClient c = MongoClients.create(uri)) {
            MongoCollection<BsonDocument> coll = c.getDatabase(DB).getCollection(COLL, BsonDocument.class);
            int step = Math.max(1, docs / Math.max(1, missing + changed));
            int k = 0;
            for (int i = step / 2; i < docs && k < missing + changed; i += step, k++) {
                if (k < missing) {
                    coll.deleteOne(Filters.eq("_id", BenchDocuments.id(i)));
                } else {
                    coll.updateOne(Filters.eq("_id", BenchDocuments.id(i)), Updates.set("total", i * 0.37 + 0.01));
                }
            }
            for (int j = 0; j < extra; j++) {
                // half before every source id, half after the last one
                ObjectId id = j % 2 == 0 ? new ObjectId(1_600_000_000, j) : BenchDocuments.id(docs + j);
                coll.insertOne(BenchDocuments.document(0, bytes).append("_id", new BsonObjectId(id)));
            }
        }
        Map<FindingKind, Integer> expected = new EnumMap<>(FindingKind.class);
        expected.put(FindingKind.MISSING, missing);
        expected.put(FindingKind.DIFFERENT, changed);
        expected.put(FindingKind.EXTRA, extra);
        expected.values().removeIf(v -> v == 0);
        return expected;
    }

    /** Runs a main class in a JVM of its own with this classpath; returns its output lines by first word(s). */
    private static Map<String, String> child(Path out, String name, String heap, String mainClass, String... args)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap,
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        String extra = System.getProperty("verify.bench.childOpts", "").replace("{name}", name);
        for (String opt : extra.split("\\s+")) {
            if (!opt.isBlank()) {
                cmd.add(opt.trim());
            }
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(List.of(args));
        System.out.printf("%s: %s (-Xmx%s)%n", name, mainClass, heap);
        Process p = new ProcessBuilder(cmd).redirectError(out.resolve(name + ".stderr.log").toFile()).start();
        Map<String, String> lines = new LinkedHashMap<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                System.out.println("  " + line);
                if (line.startsWith("RAW ")) {
                    lines.put("RAW " + line.split(" ")[1], line);
                } else if (line.startsWith(ChildStats.PREFIX)) {
                    lines.put("STATS", line);
                } else if (line.startsWith("VERIFY ")) {
                    lines.put("VERIFY", line);
                } else if (line.startsWith("DIFFERS") || line.startsWith("EQUAL") || line.startsWith("FAILED") || line.startsWith("UNSETTLED")) {
                    lines.put("RESULT", line);
                }
            }
        }
        int exit = p.waitFor();
        if (exit != 0) {
            throw new IllegalStateException(name + " exited with " + exit + "; see " + out.resolve(name + ".stderr.log"));
        }
        return lines;
    }

    /** One raw read and one verify run, back to back. */
    private record Round(Map<String, String> raw, Map<String, String> verify, BsonDocument verifySummary, Map<FindingKind, Integer> found) {
        double raw(String what) {
            String[] f = raw.get("RAW " + what).split(" ");
            return Long.parseLong(f[2]) * 1000.0 / Long.parseLong(f[4]);
        }

        double rawMb(String what) {
            String[] f = raw.get("RAW " + what).split(" ");
            return Long.parseLong(f[3]) / 1e6 * 1000.0 / Long.parseLong(f[4]);
        }

        double verifyRate() {
            return verifySummary.getNumber("documents").longValue() * 1000.0 / verifySummary.getNumber("millis").longValue();
        }

        double verifyProcess() {
            long ms = Long.parseLong(verify.get("VERIFY").replaceAll(".*millis=", ""));
            return verifySummary.getNumber("documents").longValue() * 1000.0 / ms;
        }

        String stats(Map<String, String> child) {
            return child.get("STATS").substring(ChildStats.PREFIX.length());
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String table(int docs, int bytes, String heap, List<Round> rounds, Map<FindingKind, Integer> expected) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%nVERIFY BENCHMARK %s: %,d documents of ~%d B per side, stand-in MongoDBs in the benchmark "
                + "JVM, readers in child JVMs with -Xmx%s, %d cores, %d rounds (raw read, then verify)%n", Instant.now(), docs, bytes, heap,
                Runtime.getRuntime().availableProcessors(), rounds.size()));
        s.append(String.format("%-52s %14s %s%n", "", "median docs/s", "each round"));
        row(s, "raw read, both sides at once (cold JVM)", rounds.stream().map(r -> r.raw("both")).toList());
        row(s, "raw read, source alone", rounds.stream().map(r -> r.raw("source")).toList());
        row(s, "raw read, destination alone", rounds.stream().map(r -> r.raw("destination")).toList());
        row(s, "verify, both sides counted (run, from its report)", rounds.stream().map(Round::verifyRate).toList());
        row(s, "  the same with connecting and the JVM's start", rounds.stream().map(Round::verifyProcess).toList());
        List<Double> ratios = rounds.stream().map(r -> r.verifyRate() / r.raw("both")).toList();
        s.append(String.format("%-52s %14.2f %s%n", "verify / raw read of both sides, same round", median(ratios),
                ratios.stream().map(v -> String.format("%.2f", v)).toList()));
        s.append(String.format("raw read of both sides: %.1f MB/s (median)%n", median(rounds.stream().map(r -> r.rawMb("both")).toList())));
        for (int i = 0; i < rounds.size(); i++) {
            s.append("round ").append(i + 1).append(" raw read JVM: ").append(rounds.get(i).stats(rounds.get(i).raw())).append('\n');
            s.append("round ").append(i + 1).append(" verify JVM:   ").append(rounds.get(i).stats(rounds.get(i).verify())).append('\n');
        }
        s.append("verify said:  ").append(rounds.get(rounds.size() - 1).verify().getOrDefault("RESULT", "?")).append('\n');
        s.append("found ").append(rounds.get(0).found()).append(" in every round, altered ").append(expected).append(": exact\n");
        return s.toString();
    }

    private static void row(StringBuilder s, String what, List<Double> values) {
        s.append(String.format("%-52s %,14.0f %s%n", what, median(values),
                values.stream().map(v -> String.format("%,.0f", v)).toList()));
    }
}
