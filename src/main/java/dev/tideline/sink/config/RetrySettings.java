package dev.tideline.sink.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/** Backoff between redeliveries of a batch that failed for a transient reason. */
public record RetrySettings(long initialBackoffMs, long maxBackoffMs) {
    public static final String GROUP = "Retries";
    public static final String BACKOFF_INITIAL_MS = "retry.backoff.initial.ms";
    public static final String BACKOFF_MAX_MS = "retry.backoff.max.ms";

    public RetrySettings {
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
    }

    static RetrySettings from(AbstractConfig c) {
        return new RetrySettings(c.getLong(BACKOFF_INITIAL_MS), c.getLong(BACKOFF_MAX_MS));
    }
}
