package dev.tideline.verify.bench;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.InsertManyOptions;
import com.mongodb.client.model.Updates;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
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
 * extra), {@code verify.bench.childHeap} (256m), {@code verify.bench.out} (target/verify-bench),
 * {@code verify.bench.childOpts} (space-separated JVM options for both children; {@code {name}} becomes the
 * child's name, e.g. {@code -XX:StartFlightRecording=settings=profile,filename=target/verify-bench/{name}.jfr}).
 */
public final class VerifyBenchmark {
    private static final String DB = "bench";
    private static final String COLL = "orders";
    private static final int LOAD_BATCH = 5_000;

    private VerifyBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int docs = Integer.getInteger("verify.bench.docs", 1_000_000);
        int bytes = Integer.getInteger("verify.bench.bytes", 256);
        int differences = Integer.getInteger("verify.bench.differences", 100);
        String childHeap = System.getProperty("verify.bench.childHeap", "256m");
        Path out = Path.of(System.getProperty("verify.bench.out", "target/verify-bench"));
        Files.createDirectories(out);
        MongoServer sourceServer = new MongoServer(new MemoryBackend());
        MongoServer destinationServer = new MongoServer(new MemoryBackend());
        sourceServer.bind("127.0.0.1", 0);
        destinationServer.bind("127.0.0.1", 0);
        String source = "mongodb://127.0.0.1:" + sourceServer.getLocalAddress().getPort() + "/";
        String destination = "mongodb://127.0.0.1:" + destinationServer.getLocalAddress().getPort() + "/";
        try {
            long loadStart = System.nanoTime();
            CompletableFuture<Void> a = CompletableFuture.runAsync(() -> load(source, docs, bytes));
            CompletableFuture<Void> b = CompletableFuture.runAsync(() -> load(destination, docs, bytes));
            a.join();
            b.join();
            Map<FindingKind, Integer> expected = alter(destination, docs, bytes, differences);
            System.gc();
            long usedMb = (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20;
            System.out.printf("loaded %,d documents of ~%d B into each stand-in in %.0f s (stand-ins' heap ~%,d MB); destination "
                    + "altered: %s%n", docs, bytes, (System.nanoTime() - loadStart) / 1e9, usedMb, expected);

            Map<String, String> raw = child(out, "raw-read", childHeap, RawReadChild.class.getName(), source, destination, DB, COLL, "1000");
            Path report = out.resolve("report.jsonl");
            Map<String, String> verify = child(out, "verify", childHeap, VerifyChild.class.getName(), "--source", source,
                    "--destination", destination, "--database", DB, "--hashing", "auto", "--rechecks", "1", "--recheck-delay", "0",
                    "--report", report.toString());

            Map<FindingKind, Integer> found = new EnumMap<>(FindingKind.class);
            ReportReader.read(report, f -> found.merge(f.kind(), 1, Integer::sum), r -> { });
            List<String> lines = Files.readAllLines(report);
            BsonDocument summary = BsonDocument.parse(lines.get(lines.size() - 1));
            String table = table(docs, bytes, childHeap, raw, verify, summary, expected, found);
            System.out.print(table);
            Files.writeString(out.resolve("results.txt"), table);
            if (!found.equals(expected)) {
                throw new AssertionError("verify found " + found + ", the benchmark altered " + expected);
            }
        } finally {
            sourceServer.shutdownNow();
            destinationServer.shutdownNow();
        }
    }

    private static void load(String uri, int docs, int bytes) {
        try (MongoClient c = MongoClients.create(uri)) {
            MongoCollection<BsonDocument> coll = c.getDatabase(DB).getCollection(COLL, BsonDocument.class);
            for (int i = 0; i < docs; i += LOAD_BATCH) {
                coll.insertMany(BenchDocuments.batch(i, Math.min(docs, i + LOAD_BATCH), bytes), new InsertManyOptions().ordered(false));
            }
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

    private static String table(int docs, int bytes, String heap, Map<String, String> raw, Map<String, String> verify,
                                BsonDocument verifySummary, Map<FindingKind, Integer> expected, Map<FindingKind, Integer> found) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%nVERIFY BENCHMARK %s: %,d documents of ~%d B per side, stand-in MongoDBs in the benchmark JVM, "
                + "readers in child JVMs with -Xmx%s, %d cores%n", Instant.now(), docs, bytes, heap, Runtime.getRuntime().availableProcessors()));
        s.append(String.format("%-46s %14s %10s %10s%n", "", "docs/s", "MB/s", "seconds"));
        for (String what : List.of("source", "destination", "both")) {
            String[] f = raw.get("RAW " + what).split(" ");
            long n = Long.parseLong(f[2]);
            long b = Long.parseLong(f[3]);
            long ms = Long.parseLong(f[4]);
            s.append(String.format("%-46s %,14.0f %10.1f %10.1f%n", "raw read, " + (what.equals("both") ? "both sides at once" : what),
                    n * 1000.0 / ms, b / 1e6 * 1000.0 / ms, ms / 1000.0));
        }
        long processMs = Long.parseLong(verify.get("VERIFY").replaceAll(".*millis=", ""));
        long runMs = verifySummary.getNumber("millis").longValue();
        long compared = verifySummary.getNumber("documents").longValue();
        String[] both = raw.get("RAW both").split(" ");
        double rawBoth = Long.parseLong(both[2]) * 1000.0 / Long.parseLong(both[4]);
        double verifyRate = compared * 1000.0 / runMs;
        s.append(String.format("%-46s %,14.0f %10s %10.1f%n", "verify run, both sides counted (report summary)", verifyRate, "",
                runMs / 1000.0));
        s.append(String.format("%-46s %,14.0f %10s %10.1f%n", "  the same with connecting and the JVM's start", compared * 1000.0 / processMs,
                "", processMs / 1000.0));
        s.append(String.format("verify / raw read of both sides at once: %.2f%n", verifyRate / rawBoth));
        s.append("raw read JVM: ").append(raw.get("STATS").substring(ChildStats.PREFIX.length())).append('\n');
        s.append("verify JVM:   ").append(verify.get("STATS").substring(ChildStats.PREFIX.length())).append('\n');
        s.append("verify said:  ").append(verify.getOrDefault("RESULT", "?")).append('\n');
        s.append("found ").append(found).append(", altered ").append(expected).append(found.equals(expected) ? ": exact\n" : ": MISMATCH\n");
        return s.toString();
    }
}
