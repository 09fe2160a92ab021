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

    private final List<String> allowedDatabases;
    private final long maxRecordBytes;

    RecordSafetySettings(AbstractConfig c) {
        allowedDatabases = c.getList(DATABASE_ALLOW).stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
        maxRecordBytes = c.getLong(RECORD_MAX_BYTES);
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
    }

    /** The destination databases the sink may write; empty: any but admin, config and local. */
    public List<String> allowedDatabases() {
        return allowedDatabases;
    }

    public long maxRecordBytes() {
        return maxRecordBytes;
    }
}
