package dev.tideline.source.capture;

import dev.tideline.event.Namespace;
import java.util.HashMap;
import java.util.Map;
import org.bson.BsonTimestamp;

/**
 * The source partitions, the ONE class that knows their keys (what each holds is {@link SourceOffset}'s):
 * a collection's {@code {db, coll}}, never derived from the connection string, and a chunk's of a copy
 * split across tasks, {@code {db, coll, copyAt, chunk}} ({@link CopyPlan}).
 */
public final class SourcePartition {
    static final String P_DB = "db";
    static final String P_COLL = "coll";
    /** a chunk of a copy split across tasks: the copy's stream start (a BSON timestamp value) and the chunk's index */
    static final String P_COPY_AT = "copyAt";
    static final String P_CHUNK = "chunk";

    private SourcePartition() {
    }

    /** The source partition of a collection. */
    public static Map<String, Object> of(Namespace ns) {
        // Connect keys stored offsets by the partition's JSON bytes, and reads edited ones (PATCH) back
        // through a default HashMap: a partition must serialize in that map's order, or an edit lands
        // under other bytes and the task never sees it (PartitionKeyTest).
        Map<String, Object> p = new HashMap<>();
        p.put(P_DB, ns.db());
        p.put(P_COLL, ns.coll());
        return p;
    }

    /**
     * The source partition of chunk {@code index} of the copy of {@code ns} that started at {@code copyStart}:
     * a later copy of the same collection has other partitions, so it never reads an earlier copy's chunks.
     */
    public static Map<String, Object> chunk(Namespace ns, BsonTimestamp copyStart, int index) {
        Map<String, Object> p = of(ns);
        p.put(P_COPY_AT, copyStart.getValue());
        p.put(P_CHUNK, index);
        return p;
    }

    /** Whether a source partition is a chunk's of a split copy (else it is a collection's). */
    public static boolean isChunk(Map<String, ?> partition) {
        return partition != null && partition.containsKey(P_CHUNK);
    }

    /** The namespace of a source partition. @throws InvalidOffsetException naming the bad key */
    public static Namespace namespace(Map<String, ?> partition) {
        Object db = partition == null ? null : partition.get(P_DB);
        Object coll = partition == null ? null : partition.get(P_COLL);
        if (!(db instanceof String d) || d.isEmpty()) {
            throw new InvalidOffsetException("source partition key '" + P_DB + "' must be the database name (a string), got " + db);
        }
        if (!(coll instanceof String c) || c.isEmpty()) {
            throw new InvalidOffsetException("source partition key '" + P_COLL + "' must be the collection name (a string), got " + coll);
        }
        return new Namespace(d, c);
    }
}
