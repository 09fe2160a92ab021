package dev.tideline.sink.config;

import java.util.List;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * What a record may make the sink do. Records are untrusted input: anyone who can produce to a topic
 * must not reach what the connector was not configured to touch. Fixed rules (never admin, config,
 * local, system.* or Tideline's own collections; ids match by value only; depth checked before
 * decoding) need no setting; these narrow it further.
 */
public final class RecordSafetySettings {
    public static final String GROUP = "Record safety";
    public static final String DATABASE_ALLOW = "database.allow";
    public static final String RECORD_MAX_BYTES = "record.max.bytes";
    /** Three times MongoDB's 16 MiB document limit: room for the JSON forms of the largest documents. */
    public static final long DEFAULT_RECORD_MAX_BYTES = 48L * 1024 * 1024;
    public static final String VERSION_MAX_AHEAD_MS = "version.max.ahead.ms";
    /** Five minutes: well above the skew of synchronized clocks, far below what pins a document for long. */
    public static final long DEFAULT_VERSION_MAX_AHEAD_MS = 5 * 60_000L;
    /** A day: beyond that no clock is merely skewed, and a forged version would pin documents for as long. */
    static final long MAX_VERSION_MAX_AHEAD_MS = 24 * 3_600_000L;

    private final List<String> allowedDatabases;
    private final long maxRecordBytes;
    private final long versionMaxAheadMs;

    RecordSafetySettings(AbstractConfig c) {
        allowedDatabases = c.getList(DATABASE_ALLOW).stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
        maxRecordBytes = c.getLong(RECORD_MAX_BYTES);
        versionMaxAheadMs = c.getLong(VERSION_MAX_AHEAD_MS);
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(DATABASE_ALLOW, Type.LIST, "", new DatabaseNameValidator("any database but admin, config and local"),
                Importance.MEDIUM,
                "The only destination databases the sink may write, whatever database a record's envelope or header "
                        + "names (with 'database' empty, each change lands in its source database). A record routed "
                        + "elsewhere goes to the dead letter queue with the reason. Empty: any database except admin, "
                        + "config and local, which are never written; system.* collections and Tideline's own "
                        + "(_tideline*) never are either.",
                GROUP, ++order, Width.LONG, "Allowed destination databases");
        def.define(RECORD_MAX_BYTES, Type.LONG, DEFAULT_RECORD_MAX_BYTES, ConfigDef.Range.between(1024L, 1L << 30),
                Importance.LOW,
                "Largest record key or value the sink decodes, in the form it arrives in: bytes for BSON, characters "
                        + "for JSON text, an estimate from the fields for maps and Structs. A larger record goes to the "
                        + "dead letter queue with the reason, before it is decoded. MongoDB stores documents up to 16 MiB; "
                        + "the default leaves room for the longer JSON forms.",
                GROUP, ++order, Width.SHORT, "Max record size (bytes)");
        def.define(VERSION_MAX_AHEAD_MS, Type.LONG, DEFAULT_VERSION_MAX_AHEAD_MS,
                ConfigDef.Range.between(1_000L, MAX_VERSION_MAX_AHEAD_MS), Importance.LOW,
                "How far ahead of this worker's clock a version taken from a record may be: a change's source cluster "
                        + "time (or a date of version.field) and a resnapshot marker's epoch. A record further ahead goes "
                        + "to the dead letter queue with the reason and is never recorded in _tideline_versions, where a "
                        + "version from the future would make every later change of its documents look stale; a marker "
                        + "further ahead sweeps nothing. Raise it only if the source cluster's clock runs ahead of the "
                        + "workers' by more than the default.",
                GROUP, ++order, Width.SHORT, "Max version ahead of the clock (ms)");
    }

    /** The destination databases the sink may write; empty: any but admin, config and local. */
    public List<String> allowedDatabases() {
        return allowedDatabases;
    }

    public long maxRecordBytes() {
        return maxRecordBytes;
    }

    /** How far ahead of this worker's clock a record's version or a marker's epoch may be, in ms. */
    public long versionMaxAheadMs() {
        return versionMaxAheadMs;
    }
}
