package dev.tideline.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.it.support.TestStack;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The copy benchmark ({@code mvn -B -Pcopy-bench verify}) in its smallest form on the shared stack: a few hundred
 * documents copied by one task and by two (a split copy), once each, no warm-up. It asserts that the benchmark
 * produced its table with a row per task count; never a speed.
 */
class CopyBenchmarkSmokeIT {

    @Test
    void printsARowPerTaskCount() {
        CopyTasksBenchmark.Result result = CopyTasksBenchmark.measure(TestStack.shared(),
                new CopyTasksBenchmark.Options(300, 2, List.of(1, 2), 1, 0));
        System.out.println(result.table());

        assertThat(result.ok()).as("every copy finished and switched to streaming:%n%s", result.table()).isTrue();
        List<String> lines = result.table().lines().toList();
        assertThat(lines.get(0)).startsWith("Initial copy of one collection (300 x");
        assertThat(lines).as(result.table()).anyMatch(l -> l.matches("1\\s+\\d+\\s+\\d+\\s+\\d+\\s+1\\.00x.*"))
                .anyMatch(l -> l.matches("2\\s+\\d+\\s+\\d+\\s+\\d+\\s+[0-9.]+x.*"));
    }
}
