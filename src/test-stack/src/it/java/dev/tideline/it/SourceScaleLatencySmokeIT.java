package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The capture-latency benchmark of {@code mvn -B verify -Pscale} ({@link SourceScaleLatencyBenchmark}) in its smallest
 * form, so that it cannot rot unseen: 20 collections, 50 writes/s for 2 s. It asserts that every change arrived and the
 * benchmark printed its figures; never a latency. (The other half of -Pscale, {@link SourceScaleIT}, runs in the
 * default suite already, at 200 collections.)
 */
class SourceScaleLatencySmokeIT {

    @Test
    void printsItsLatencyLine() {
        String line = SourceScaleLatencyBenchmark.measure(20, 50, 2, "latencysmoke");
        System.out.println(line);

        assertThat(line).matches("SCALE capture latency of one busy collection \\(50 writes/s for 2 s\\) while 19 are idle, one task: "
                + "p50 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms .*");
    }
}
