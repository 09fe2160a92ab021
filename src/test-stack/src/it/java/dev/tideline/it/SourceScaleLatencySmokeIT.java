package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The capture-latency benchmark of {@code mvn -B verify -Pscale} ({@link SourceScaleLatencyBenchmark}) in its smallest
 * form, so that it cannot rot unseen: 20 collections, 50 writes/s for 2 s to one of them, then spread over all. It
 * asserts that every change arrived and the benchmark printed both figures; never a latency. (The other half of
 * -Pscale, {@link SourceScaleIT}, runs in the default suite already, at 200 collections.)
 */
class SourceScaleLatencySmokeIT {

    @Test
    void printsItsLatencyLine() {
        List<String> lines = SourceScaleLatencyBenchmark.measure(20, 50, 50, 2, "latencysmoke");
        lines.forEach(System.out::println);

        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).startsWith("SCALE warm-up, the first change of each of 20 new topics");
        assertThat(lines.get(1)).matches("SCALE capture latency of one busy collection \\(50 writes/s for 2 s\\) while 19 are idle, one task: "
                + "p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms .*");
        assertThat(lines.get(2)).matches("SCALE capture latency of writes spread over all 20 collections \\(50 writes/s for 2 s\\), one task: "
                + "p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms .*");
    }
}
