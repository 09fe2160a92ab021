package dev.tideline.sink.guard;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDateTime;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class VersionBoundTest {
    private static final long NOW_MS = 1_800_000_000_000L;
    private static final long AHEAD_MS = 300_000L;
    private final VersionBound bound = new VersionBound(AHEAD_MS, () -> NOW_MS);

    private static BsonTimestamp seconds(long s) {
        return new BsonTimestamp((int) s, 7);
    }

    @Test
    void clusterTimesUpToTheBoundPassAndBeyondItAreRefused() {
        long now = NOW_MS / 1000;
        assertThat(bound.problem(seconds(now - 86_400), "its version")).isEmpty();
        assertThat(bound.problem(seconds(now + AHEAD_MS / 1000), "its version")).isEmpty();
        assertThat(bound.problem(seconds(now + AHEAD_MS / 1000 + 1), "its version")).hasValueSatisfying(p -> assertThat(p)
                .contains("its version Timestamp(" + (now + 301) + ", 7)").contains("301 s ahead")
                .contains("version.max.ahead.ms (300000 ms)"));
    }

    @Test
    void aTimestampReadsItsSecondsUnsigned() {
        // seconds past 2^31 (year 2038+) are a large positive time, never a negative one that would pass
        assertThat(bound.problem(new BsonTimestamp(0xFFFF_FFFFL << 32 | 1), "its epoch")).hasValueSatisfying(p ->
                assertThat(p).contains("Timestamp(4294967295, 1)"));
    }

    @Test
    void datesAreBoundedAndKindsWithoutAClockPass() {
        assertThat(bound.problem(new BsonDateTime(NOW_MS + AHEAD_MS), "its version")).isEmpty();
        assertThat(bound.problem(new BsonDateTime(NOW_MS + AHEAD_MS + 1_000), "its version")).isPresent();
        assertThat(bound.problem(new BsonInt64(Long.MAX_VALUE), "its version")).isEmpty();
        assertThat(bound.problem(new BsonString("zzzz"), "its version")).isEmpty();
        assertThat(bound.problem(new BsonObjectId(), "its version")).isEmpty();
        assertThat(bound.problem(null, "its version")).isEmpty();
    }
}
