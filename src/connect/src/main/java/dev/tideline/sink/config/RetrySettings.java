package dev.tideline.sink.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/**
 * Backoff between redeliveries of a batch that failed for a transient reason, and how long a write a
 * unique index refused is retried before it is reported.
 */
public final class RetrySettings {
    public static final String GROUP = "Retries";
    public static final String BACKOFF_INITIAL_MS = "retry.backoff.initial.ms";
    public static final String BACKOFF_MAX_MS = "retry.backoff.max.ms";
    public static final String DUPLICATE_KEY_RETRY_MS = "duplicate.key.retry.ms";

    private final long initialBackoffMs;
    private final long maxBackoffMs;
    private final long duplicateKeyRetryMs;

    RetrySettings(AbstractConfig c) {
        initialBackoffMs = c.getLong(BACKOFF_INITIAL_MS);
        maxBackoffMs = c.getLong(BACKOFF_MAX_MS);
        duplicateKeyRetryMs = c.getLong(DUPLICATE_KEY_RETRY_MS);
        if (maxBackoffMs < initialBackoffMs) {
            throw new ConfigException(BACKOFF_MAX_MS, maxBackoffMs, "must be at least " + BACKOFF_INITIAL_MS
                    + " (" + initialBackoffMs + ")");
        }
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(BACKOFF_INITIAL_MS, Type.LONG, 1_000L, ConfigDef.Range.between(1, 3_600_000), Importance.LOW,
                "Wait before the first redelivery of a batch that failed transiently (network, failover, "
                        + "write-concern timeout, shutdown in progress); doubles on each further failure.",
                GROUP, ++order, Width.SHORT, "Initial retry backoff (ms)");
        def.define(BACKOFF_MAX_MS, Type.LONG, 30_000L, ConfigDef.Range.between(1, 3_600_000), Importance.LOW,
                "Longest wait between redeliveries. Transient errors are retried until they stop; the task stays "
                        + "RUNNING and logs each retry.",
                GROUP, ++order, Width.SHORT, "Max retry backoff (ms)");
        def.define(DUPLICATE_KEY_RETRY_MS, Type.LONG, 60_000L, ConfigDef.Range.between(0, 86_400_000), Importance.LOW,
                "How long a write that a unique index refuses (duplicate key, 11000) is retried before it goes to the "
                        + "dead letter queue (or stops the task under errors.tolerance=none). Often transient: two "
                        + "documents swapped a unique value, and the change that frees it travels on another partition. "
                        + "The record is applied again ahead of each later batch (every " + BACKOFF_INITIAL_MS + " at "
                        + "least) while the other records flow on, and the committed offset of its partition stays at "
                        + "it until it lands or is reported. 0: reported at once.",
                GROUP, ++order, Width.SHORT, "Duplicate key retry (ms)");
    }

    public long initialBackoffMs() {
        return initialBackoffMs;
    }

    public long maxBackoffMs() {
        return maxBackoffMs;
    }

    public long duplicateKeyRetryMs() {
        return duplicateKeyRetryMs;
    }
}
