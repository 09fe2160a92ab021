package dev.tideline.verify.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verify benchmark ({@code mvn -B -Pverify-bench verify}) in its smallest form: 2,000 documents a side, 10
 * differences, one round of its two child JVMs. It asserts that the benchmark produced its table, with verify's
 * findings exactly those it made (the benchmark itself fails otherwise); never a speed.
 */
class VerifyBenchmarkSmokeTest {

    @Test
    void printsItsTable(@TempDir Path out) throws Exception {
        String table = VerifyBenchmark.run(new VerifyBenchmark.Options(2_000, 256, 10, "128m", 1, out));

        assertThat(table).contains("VERIFY BENCHMARK").contains("2,000 documents")
                .containsPattern("raw read, both sides at once \\(cold JVM\\) +[0-9,]+")
                .containsPattern("verify, both sides counted \\(run, from its report\\) +[0-9,]+")
                .contains(": exact");
        assertThat(Files.readString(out.resolve("results.txt"))).isEqualTo(table);
    }
}
