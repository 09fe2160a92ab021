package dev.tideline.fanout.channel;

/**
 * Bounds of the in-memory history from which clients resume without reading Kafka.
 *
 * @param maxCount      changes kept per channel
 * @param maxAgeMillis  how long a change is kept
 * @param maxBytes      bytes kept per channel
 * @param totalMaxBytes bytes kept by all channels together
 */
public record HistoryLimits(int maxCount, long maxAgeMillis, long maxBytes, long totalMaxBytes) {
    public HistoryLimits {
        if (maxCount < 0 || maxAgeMillis < 0 || maxBytes < 0 || totalMaxBytes < 0) {
            throw new IllegalArgumentException("history limits must be >= 0");
        }
    }
}
