package dev.tideline.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.Document;

/** What every measurement uses: the stack, the worker probe, the result table, the sizes. */
final class BenchContext {
    final TestStack stack;
    final ConnectRest rest;
    final TopicCounter topics;
    final WorkerProbe worker;
    final ResultTable table;
    final BenchSizes sizes;
    final Path outDir;
    final boolean jfr;
    private final AtomicInteger names = new AtomicInteger();

    BenchContext(TestStack stack, WorkerProbe worker, ResultTable table, BenchSizes sizes, Path outDir, boolean jfr) {
        this.stack = stack;
        this.rest = stack.rest();
        this.topics = new TopicCounter(stack.bootstrapServers());
        this.worker = worker;
        this.table = table;
        this.sizes = sizes;
        this.outDir = outDir;
        this.jfr = jfr;
    }

    /**
     * A full GC in this JVM (the stand-ins') and in the worker right before a timed run, so that what the previous run
     * left behind is collected now and not billed to whoever runs next: in two runs of 2026-12-04 the second connector
     * of each round drained slower than the first in 5 of 6 rounds, and its stand-in used up to 4x the CPU, whichever
     * connector it was.
     */
    void quiesce() {
        System.gc();
        worker.heapAfterGcMb();
    }

    /** A connector name / topic prefix used once in this run. */
    String unique(String what) {
        return "b" + names.incrementAndGet() + "-" + what;
    }

    /** The trace of a FAILED connector or task of {@code name}, or null while none failed. */
    String failure(String name) {
        JsonNode status = rest.statusOrEmpty(name);
        if ("FAILED".equals(status.path("connector").path("state").asText())) {
            return firstLine(status.path("connector").path("trace").asText("(no trace)"));
        }
        for (JsonNode task : status.path("tasks")) {
            if ("FAILED".equals(task.path("state").asText())) {
                return firstLines(task.path("trace").asText("(no trace)"));
            }
        }
        return null;
    }

    /** The exception lines of a trace (message and causes), without the stack frames. */
    private static String firstLines(String trace) {
        StringBuilder out = new StringBuilder();
        for (String line : trace.split("\n")) {
            if (!line.startsWith("\t")) {
                out.append(out.length() == 0 ? "" : " / caused by: ").append(line.trim());
            }
        }
        return out.length() > 600 ? out.substring(0, 600) + "..." : out.toString();
    }

    private static String firstLine(String trace) {
        int nl = trace.indexOf('\n');
        return nl < 0 ? trace : trace.substring(0, nl);
    }

    /** With -Dbench.jfr=true and {@code when}, starts a JFR recording in the worker into the output dir; else null. */
    Path startJfr(String name, boolean when) {
        if (!jfr || !when) {
            return null;
        }
        Path file = outDir.resolve(name + ".jfr");
        worker.startJfr(name, file);
        return file;
    }

    void stopJfr(String name, Path file) {
        if (file != null) {
            worker.stopJfr(name);
            log("JFR recording of " + name + ": " + file + " (jfr print --events jdk.ExecutionSample " + file + ")");
        }
    }

    /**
     * Deletes a connector and waits until the worker has it no more, then {@link BenchSizes#settleMillis()} for its
     * tasks' shutdown, so that it is not billed to the next measurement.
     */
    void deleteAndSettle(String name) {
        rest.deleteConnector(name);
        Waits.until(name + " gone from the worker after its delete", Duration.ofSeconds(60), Duration.ofMillis(50),
                () -> rest.statusOrEmpty(name).isEmpty(), Boolean::booleanValue);
        Progress.sleep(sizes.settleMillis());
    }

    /** Inserts documents 0..n-1 of {@link BenchDocs} into {@code bench.c}, 1,000 per round trip. */
    static void fill(MongoClient client, int n) {
        MongoCollection<Document> coll = client.getDatabase(ConnectorConfigs.DB).getCollection(ConnectorConfigs.COLL);
        for (int from = 0; from < n; from += 1000) {
            coll.insertMany(BenchDocs.docs(from, Math.min(n, from + 1000)));
        }
    }

    static void log(String line) {
        System.out.println("[bench " + java.time.LocalTime.now().withNano(0) + "] " + line);
    }
}
