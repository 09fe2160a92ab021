package dev.tideline.bench;

import dev.tideline.it.support.TestStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.List;
import java.lang.management.ManagementFactory;
import java.util.function.Supplier;

/**
 * The connector benchmark: Tideline and MongoDB's official connector on the same work, next to the
 * limits of the driver and the Kafka producer alone, in one run on one stack (a real KRaft broker and
 * Connect distributed worker, the test stack; a fresh mongo-java-server for each measurement).
 *
 * <p>Run it with {@code mvn -B -Pbench verify} (src/test-stack/pom.xml): it prints one table of medians and
 * ratios, writes it to {@code target/bench/results.{txt,md,tsv}} and, with the chart, to
 * {@code <bench.docs.dir>/benchmark-results.md} and {@code benchmark.png}. A measurement that fails
 * is recorded as FAILED with its reason and the others still run; the exit code is 0 only when
 * every Tideline measurement succeeded.
 */
public final class Benchmark {
    private Benchmark() {
    }

    public static void main(String[] args) throws IOException {
        BenchSizes sizes = BenchSizes.fromSystemProperties();
        Path outDir = Path.of(System.getProperty("bench.out.dir", "target/bench")).toAbsolutePath();
        Path docsDir = Path.of(System.getProperty("bench.docs.dir", "target/bench")).toAbsolutePath();
        Files.createDirectories(outDir);
        Machine machine = Machine.describe();
        BenchContext.log("machine: " + machine.summary() + "; load before the run: " + machine.loadAverage());
        BenchContext.log("sizes: " + sizes.describe());
        if (BenchDocs.encodedSize(0) != BenchDocs.BYTES) {
            throw new IllegalStateException("documents are " + BenchDocs.encodedSize(0) + " bytes, not " + BenchDocs.BYTES);
        }

        TestStack stack = TestStack.start(outDir.resolve("stack"));
        ResultTable table = new ResultTable();
        table.note("Sizes: " + sizes.describe() + (sizes.isFull() ? "." : " (REDUCED: not the full sizes)."));
        table.note("Load average (1, 5, 15 min) before the run: " + machine.loadAverage() + ".");
        Output output = new Output(table, machine, outDir, docsDir);
        boolean ok;
        try (WorkerProbe worker = WorkerProbe.attach(outDir.resolve("stack"))) {
            BenchContext ctx = new BenchContext(stack, worker, table, sizes, outDir, Boolean.getBoolean("bench.jfr"));
            ok = new Measurements(ctx).runAll(() -> output.write(false));
        }
        table.note("Load average after the run: " + Machine.describe().loadAverage() + ".");
        output.write(true);
        System.exit(ok ? 0 : 1);
    }

    /** The table as text, Markdown, TSV and chart; written after every part and once more at the end. */
    private record Output(ResultTable table, Machine machine, Path outDir, Path docsDir) {
        void write(boolean last) {
            try {
                String date = ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'"));
                String header = "Benchmark of " + date + " on " + machine.summary() + (last ? "" : " (INCOMPLETE: run still going)");
                String text = header + "\n\n" + table.text();
                if (last) {
                    System.out.println();
                    System.out.println(text);
                }
                Files.writeString(outDir.resolve("results.txt"), text);
                Files.writeString(outDir.resolve("results.tsv"), table.tsv());
                String markdown = "# Benchmark results\n\n" + header + ". Produced by `mvn -B -Pbench verify` (see README.md, "
                        + "section Performance).\n\n![benchmark chart](benchmark.png)\n\n" + table.markdown();
                Files.writeString(outDir.resolve("results.md"), markdown);
                Files.createDirectories(docsDir);
                Files.writeString(docsDir.resolve("benchmark-results.md"), markdown);
                ResultChart.write(table.rows(), "Tideline vs MongoDB's official Kafka connector (medians)",
                        date + " | " + machine.summary(), docsDir.resolve("benchmark.png"));
                BenchContext.log("wrote " + outDir.resolve("results.txt") + ", " + docsDir.resolve("benchmark-results.md")
                        + " and " + docsDir.resolve("benchmark.png"));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot write the results", e);
            }
        }
    }

    /** The machine the figures were taken on, and how busy it was. */
    record Machine(String cpu, int cores, long memoryMb, String javaVersion, String loadAverage) {
        static Machine describe() {
            String cpu = firstMatching(Path.of("/proc/cpuinfo"), "model name", () -> System.getProperty("os.arch"));
            String load = readOr(Path.of("/proc/loadavg"), "unknown");
            String[] parts = load.trim().split("\\s+");
            String loadAvg = parts.length >= 3 ? parts[0] + ", " + parts[1] + ", " + parts[2] : load;
            long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory
                    .getOperatingSystemMXBean()).getTotalMemorySize() / (1024 * 1024);
            return new Machine(cpu, Runtime.getRuntime().availableProcessors(), memory,
                    "Java " + System.getProperty("java.version"), loadAvg);
        }

        String summary() {
            return cores + " cores (" + cpu + "), " + (memoryMb / 1024) + " GB RAM, " + javaVersion + ", " + System.getProperty("os.name");
        }

        private static String firstMatching(Path file, String key, Supplier<String> fallback) {
            for (String line : readLines(file)) {
                if (line.startsWith(key)) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
            return fallback.get();
        }

        private static String readOr(Path file, String fallback) {
            try {
                return Files.readString(file);
            } catch (IOException e) {
                return fallback;
            }
        }

        private static List<String> readLines(Path file) {
            try {
                return Files.readAllLines(file);
            } catch (IOException e) {
                return Collections.emptyList();
            }
        }
    }
}
