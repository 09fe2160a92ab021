package dev.tideline.verify.connect;

import java.util.HashMap;
import java.util.Map;

/**
 * Where the schedule stands, as the connector's source offset: when the last run started and whether
 * it finished. The one place that knows the offset's keys. A restart waits for the next due time
 * after a finished run, and runs at once after one that was cut short.
 *
 * @param lastStartMs when the last run started, -1 when none did
 */
public record VerifySchedule(long lastStartMs, boolean finished) {
    public static final VerifySchedule NEVER = new VerifySchedule(-1, true);
    /** The one partition of a verify connector (Connect keeps offsets per connector already). */
    public static final Map<String, Object> PARTITION = Map.of("verify", "schedule");
    private static final String VERSION = "v";
    private static final String LAST_START = "lastStartMs";
    private static final String FINISHED = "finished";

    /** @param offset what Connect stored, or null; one this version cannot read counts as no run yet */
    public static VerifySchedule fromMap(Map<String, Object> offset) {
        if (offset == null || !(offset.get(LAST_START) instanceof Number start) || !(offset.get(FINISHED) instanceof Boolean done)) {
            return NEVER;
        }
        return new VerifySchedule(start.longValue(), done);
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = new HashMap<>();
        m.put(VERSION, 1);
        m.put(LAST_START, lastStartMs);
        m.put(FINISHED, finished);
        return m;
    }

    /** When the next run starts: now if none ran or the last one was cut short, else one interval after the last start. */
    public long nextRunMs(long intervalMs, long nowMs) {
        if (lastStartMs < 0 || !finished) {
            return nowMs;
        }
        return lastStartMs + intervalMs;
    }
}
