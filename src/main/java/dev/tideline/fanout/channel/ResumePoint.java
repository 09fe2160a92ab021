package dev.tideline.fanout.channel;

/**
 * Where a client resumes one channel from.
 *
 * @param epoch        the gateway run the client's seq belongs to
 * @param lastSeen     the last seq it received
 * @param fromEarliest replay all the history held instead (a fresh client that wants recent changes)
 */
public record ResumePoint(String epoch, long lastSeen, boolean fromEarliest) {
    public static ResumePoint earliest() {
        return new ResumePoint(null, 0, true);
    }

    public static ResumePoint after(String epoch, long lastSeen) {
        return new ResumePoint(epoch, lastSeen, false);
    }
}
