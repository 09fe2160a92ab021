package dev.tideline.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.it.support.TestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The connector benchmark ({@code mvn -B -Pbench verify}) in its smallest form, on the shared stack, so that it cannot
 * rot unseen: every part (drain, backfill, sink, latency, heap, producer) with every contender once at a few hundred
 * documents, no warm-up ({@link BenchSizes#smoke()}). It asserts that the benchmark produced its table, each figure
 * measured, none failed; never a speed (at these sizes the figures mean nothing).
 */
class ConnectorBenchmarkSmokeIT {

    @Test
    void everyFigureOfTheTableIsMeasured() throws Exception {
        TestStack stack = TestStack.shared();
        Path out = Files.createDirectories(Path.of("target/bench-smoke").toAbsolutePath());
        ResultTable table = new ResultTable();
        Measurements measurements;
        boolean ok;
        try (WorkerProbe worker = WorkerProbe.attach(stack.workDir())) {
            measurements = new Measurements(new BenchContext(stack, worker, table, BenchSizes.smoke(), out, false));
            ok = measurements.runAll(() -> { });
        }
        String text = table.text();
        Files.writeString(out.resolve("results.txt"), text);
        System.out.println(text);

        assertThat(ok).as("every Tideline measurement ran:%n%s", text).isTrue();
        Map<Metric, ResultTable.Row> rows = new java.util.LinkedHashMap<>();
        table.rows().forEach(row -> rows.put(row.metric(), row));
        assertThat(rows.values()).as("no figure failed:%n%s", text).allSatisfy(row -> assertThat(row.failures()).isEmpty());
        List<Contender> connectors = List.of(Contender.TIDELINE, Contender.OFFICIAL);
        for (Metric metric : List.of(measurements.drainRate, measurements.drainCpu, measurements.drainStandInCpu,
                measurements.backfillSmall, measurements.backfillLarge, measurements.backfillCpu, measurements.backfillAlloc,
                measurements.backfillStandInCpu, measurements.sinkRate, measurements.sinkCpu,
                measurements.sinkStandInCpu, measurements.sinkRateBigPoll, measurements.latencyP50, measurements.latencyP99, measurements.latencyLingerZeroP50,
                measurements.latencyLingerZeroP99, measurements.heapMax,
                measurements.heapGrowth)) {
            assertThat(rows).as("the table has %s:%n%s", metric.label(), text).containsKey(metric);
            assertThat(rows.get(metric).medians().keySet()).as("%s measured for both connectors", metric.label())
                    .containsAll(connectors);
        }
        for (Metric metric : List.of(measurements.sinkRateNoGuard, measurements.sinkCpuNoGuard, measurements.sinkStandInCpuNoGuard,
                measurements.sinkRateBigPollNoGuard,
                measurements.latencyNoGuardP50, measurements.latencyNoGuardP99)) {
            assertThat(rows.get(metric).medians()).as("%s:%n%s", metric.label(), text).containsKey(Contender.TIDELINE);
        }
        for (Metric metric : List.of(measurements.drainRate, measurements.backfillSmall, measurements.backfillLarge,
                measurements.findInIdOrderLarge, measurements.producerCopyRecords, measurements.backfillLimit, measurements.sinkRate, measurements.latencyP99, measurements.producer)) {
            assertThat(rows.get(metric).medians()).as("the raw limit of %s:%n%s", metric.label(), text).containsKey(Contender.RAW);
        }
        assertThat(text).contains("Tideline/official").contains("stand-in CPU for that sink run");
    }
}
