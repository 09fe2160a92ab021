package dev.tideline.fanout.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.it.support.TestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The fanout benchmark ({@code mvn -B -Pfanout-bench -DskipTests verify}) in its smallest form on the shared
 * broker, so that it cannot rot unseen: the gateway distribution in its own JVM, 50 SSE clients in another,
 * 20 changes/s for 2 s. It asserts that the benchmark produced its table with every figure measured (latency,
 * the gateway's CPU and CPU per delivery, the clients' CPU, heap) and every change delivered to every client;
 * never a speed.
 */
class FanoutBenchmarkSmokeIT {

    @Test
    void printsEveryFigureOfItsTable() throws Exception {
        TestStack stack = TestStack.shared();
        Path work = Files.createDirectories(Path.of("target/fanout-bench-smoke").toAbsolutePath());
        FanoutLoadBenchmark.Options options = new FanoutLoadBenchmark.Options(50, 5, List.of(20), 2, 0, "256m", List.of(),
                Map.of(), "256m", "fbsmoke" + Long.toHexString(System.nanoTime()));
        FanoutLoadBenchmark.Result result = FanoutLoadBenchmark.measure(stack, work, options);
        String table = result.table();
        System.out.println(table);

        assertThat(result.ok()).as("all 50 clients subscribed and every figure was measured:%n%s", table).isTrue();
        assertThat(result.steps()).hasSize(1);
        FanoutLoadBenchmark.Step step = result.steps().get(0);
        assertThat(step.expected()).isEqualTo(20L * 2 * 10);
        assertThat(step.received()).as("every change reached every client of its channel:%n%s", table).isEqualTo(step.expected());
        List<String> lines = table.lines().toList();
        assertThat(lines.get(0)).startsWith("Fanout gateway: 50 SSE clients on 5 channels (10 each), clients in their own JVM");
        assertThat(lines).as(table)
                .anyMatch(l -> l.matches("\\s+20\\s+400\\s+100\\.00%\\s+\\d+\\s+\\d+\\s+\\d+\\s+\\d+\\s+\\d+\\s+[0-9.]+\\s+[0-9.]+\\s+\\d+%\\s+[0-9.]+\\s+\\d+/\\d+\\s+.*"))
                .anyMatch(l -> l.startsWith("highest rate with p99 <= 250 ms"))
                .anyMatch(l -> l.startsWith("projection at "));
        assertThat(table).doesNotContain("NOT MEASURED").doesNotContain("FAILED");
    }
}
