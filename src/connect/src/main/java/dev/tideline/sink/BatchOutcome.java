package dev.tideline.sink;

import dev.tideline.sink.write.RecordFailure;
import java.util.List;

/**
 * What applying one batch did, record by record: every record is exactly one of written (its change
 * was sent and accepted), superseded (a later change to the same document in the batch was written
 * instead), stale (older than the destination), skipped (asks for no write), filtered (another
 * destination's collection), or failed.
 */
public record BatchOutcome(int records, int written, int superseded, int stale, int skipped, int filtered,
                           List<RecordFailure> failures) {
    public BatchOutcome {
        failures = List.copyOf(failures);
    }

    @Override
    public String toString() {
        return records + " records: " + written + " written, " + superseded + " superseded, " + stale + " stale, "
                + skipped + " skipped, " + filtered + " filtered out, " + failures.size() + " failed";
    }
}
