package dev.tideline.source.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** Whether each source task mirrors its health into a document of the source database, for dashboards. */
public final class HealthStateSettings {
    public static final String GROUP = "Health";
    public static final String STATE_DATABASE = "health.state.database";
    public static final String STATE_INTERVAL_MS = "health.state.interval.ms";
    /** Excluded from capture like every _tideline* collection, so the mirror never feeds itself. */
    public static final String STATE_COLLECTION = "_tideline_state";

    private final String database;
    private final long intervalMs;

    HealthStateSettings(AbstractConfig c) {
        this.database = c.getString(STATE_DATABASE).trim();
        this.intervalMs = c.getLong(STATE_INTERVAL_MS);
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(STATE_DATABASE, Type.STRING, "", Importance.LOW,
                "Database of the source in which each task keeps one document in the " + STATE_COLLECTION + " collection "
                        + "(_id <connector>/<task>): health, reasons, per-collection phase, position and counts, host and pid, "
                        + "so a dashboard can read the state without Kafka or JMX. Empty (the default): off. Needs the "
                        + "readWrite role on that database; a refused write is logged and never stops the capture.",
                GROUP, ++order, Width.MEDIUM, "State document database");
        def.define(STATE_INTERVAL_MS, Type.LONG, 10_000L, ConfigDef.Range.between(1_000, 3_600_000), Importance.LOW,
                "How often the state document is rewritten, in milliseconds (also on stop, with health 'stopped').",
                GROUP, ++order, Width.SHORT, "State document interval (ms)");
    }

    public boolean enabled() {
        return !database.isEmpty();
    }

    public String database() {
        return database;
    }

    public long intervalMs() {
        return intervalMs;
    }
}
