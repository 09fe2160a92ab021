package dev.tideline.source.capture;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.json.JsonParseException;
import org.bson.json.JsonWriterSettings;

/**
 * Where capture of one collection stands: the ONE class that knows the offset keys (the partitions'
 * are {@link SourcePartition}'s). Offsets are versioned maps of strings and longs (what Connect stores
 * as JSON).
 *
 * <ul>
 *   <li>{@code BACKFILL}: copying existing documents in {@code _id} order; {@code lastId} is the last
 *       copied id (null before the first), {@code startAt} the stream position taken BEFORE the copy
 *       began, so every write made during the copy is replayed by the stream afterwards. Every copy ends
 *       with a {@code resnapshot.complete} marker (also after a restart mid-copy). A copy split across
 *       tasks ({@link CopyPlan}) keeps its chunks' bounds in {@code split} here, and each chunk its own
 *       {@code lastId} (and {@code chunkDone} once copied) under its chunk's partition
 *       ({@link SourcePartition#chunk}).</li>
 *   <li>{@code STREAM}: in the change stream; {@code token} is the resume token of the collection's last
 *       event (or a later post-batch token) and {@code ct} that position's cluster time, so positions of
 *       collections read through one stream always compare ({@link StreamPosition}); or {@code startAt}
 *       alone when no event has been seen yet, with {@code copied} when that is where a finished copy's
 *       stream begins (a copy that outlived the oplog window is told apart from a plain lost history).
 *       {@code token} with {@code startAt} (equal to {@code ct}): after an event that arrived split into
 *       fragments, whose FIRST fragment's token {@code token} is; the stream opens at {@code startAt}, never
 *       at a fragment's token ({@link StreamPosition#afterSplitEvent}).</li>
 *   <li>{@code SCAN}: the date-scan cursor {@code (scanKey, scanId)}; both null before the first
 *       document (scan from the beginning); {@code scanKey} alone (no id) means "from this key on".</li>
 * </ul>
 * Values that are BSON (ids, keys, tokens) are stored as canonical Extended JSON, which is lossless.
 *
 * <p>Version 1 offsets (no {@code ct}; {@code resnap} on a resnapshot's copy) are read as they are: a
 * token's cluster time is read from the token itself, and every copy now ends with its marker anyway.
 */
public final class SourceOffset {
    public static final int VERSION = 2;
    /** The first release's offsets, still read (see the class comment). */
    static final int VERSION_1 = 1;

    // offset keys
    static final String K_VERSION = "v";
    static final String K_PHASE = "phase";
    static final String K_TOKEN = "token";
    static final String K_START_AT = "startAt";
    static final String K_LAST_ID = "lastId";
    static final String K_SCAN_KEY = "scanKey";
    static final String K_SCAN_ID = "scanId";
    static final String K_DELETE_AT = "delAt";
    static final String K_DELETE_ID = "delId";
    /** Version 1 only: read and ignored. */
    static final String K_RESNAPSHOT = "resnap";
    static final String K_CLUSTER_TIME = "ct";
    static final String K_COPIED = "copied";
    /** peer mode: the origin labeler's clock after this record (a BSON timestamp value), see PeerOriginTagger */
    static final String K_PEER_CLOCK = "peerClock";
    /** where the collection's repairs stand (Extended JSON of a document), see RepairProgress */
    static final String K_REPAIR = "repair";
    /** BACKFILL of a copy split across tasks: the chunks' bounds (Extended JSON array of _ids), see CopyPlan */
    static final String K_SPLIT = "split";
    /** BACKFILL of one chunk of a split copy: the chunk is copied whole (its records are all acknowledged) */
    static final String K_CHUNK_DONE = "chunkDone";

    private static final JsonWriterSettings CANONICAL = OffsetValues.CANONICAL;

    public enum Phase {
        BACKFILL, STREAM, SCAN;

        String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Phase phase;
    private final BsonDocument token;
    private final BsonTimestamp startAt;
    private final BsonValue lastId;
    private final BsonValue scanKey;
    private final BsonValue scanId;
    private final BsonValue deleteAt;
    private final BsonValue deleteId;
    /** The token's cluster time (STREAM with a token), or null when stored by version 1 and unreadable from the token. */
    private final BsonTimestamp clusterTime;
    private final boolean copied;
    /** BACKFILL split across tasks: the bounds between its chunks; null when one task copies it whole. */
    private final List<BsonValue> split;
    private final boolean chunkDone;

    private SourceOffset(Phase phase, BsonDocument token, BsonTimestamp startAt, BsonValue lastId, BsonValue scanKey, BsonValue scanId) {
        this(phase, token, null, startAt, lastId, scanKey, scanId, null, null, false);
    }

    private SourceOffset(Phase phase, BsonDocument token, BsonTimestamp clusterTime, BsonTimestamp startAt, BsonValue lastId,
                         BsonValue scanKey, BsonValue scanId, BsonValue deleteAt, BsonValue deleteId, boolean copied) {
        this(phase, token, clusterTime, startAt, lastId, scanKey, scanId, deleteAt, deleteId, copied, null, false);
    }

    SourceOffset(Phase phase, BsonDocument token, BsonTimestamp clusterTime, BsonTimestamp startAt, BsonValue lastId,
                 BsonValue scanKey, BsonValue scanId, BsonValue deleteAt, BsonValue deleteId, boolean copied,
                 List<BsonValue> split, boolean chunkDone) {
        this.phase = Objects.requireNonNull(phase);
        this.token = token;
        this.clusterTime = clusterTime;
        this.startAt = startAt;
        this.lastId = lastId;
        this.scanKey = scanKey;
        this.scanId = scanId;
        this.deleteAt = deleteAt;
        this.deleteId = deleteId;
        this.copied = copied;
        this.split = split == null ? null : List.copyOf(split);
        this.chunkDone = chunkDone;
    }

    public static SourceOffset backfill(BsonTimestamp streamStart, BsonValue lastCopiedId) {
        return new SourceOffset(Phase.BACKFILL, null, Objects.requireNonNull(streamStart, "streamStart"), lastCopiedId, null, null);
    }

    /** The same backfill after another copied id. */
    public SourceOffset copiedUpTo(BsonValue lastCopiedId) {
        if (phase != Phase.BACKFILL) {
            throw new IllegalStateException("only a backfill position moves by copied ids, this is " + this);
        }
        return backfill(startAt, lastCopiedId);
    }

    /**
     * A copy split across tasks, as its owner commits it with the copy's begin marker: the stream start
     * and the bounds between the chunks ({@link CopyPlan}); each chunk keeps its own offset under
     * {@link SourcePartition#chunk}.
     */
    public static SourceOffset backfillSplit(CopyPlan plan) {
        return new SourceOffset(Phase.BACKFILL, null, null, plan.streamStart(), null, null, null, null, null, false, plan.bounds(),
                false);
    }

    /** The split copy this backfill is, or null when one task copies the collection whole. */
    public CopyPlan split() {
        return split == null ? null : new CopyPlan(startAt, split);
    }

    /** One chunk of a split copy, copied whole up to {@code lastCopiedId} (null: the chunk was empty). */
    public static SourceOffset chunkDone(BsonTimestamp streamStart, BsonValue lastCopiedId) {
        return new SourceOffset(Phase.BACKFILL, null, null, Objects.requireNonNull(streamStart, "streamStart"), lastCopiedId, null,
                null, null, null, false, null, true);
    }

    /** Whether this is a chunk's offset after its last copy. */
    public boolean isChunkDone() {
        return chunkDone;
    }

    /** Stream from an operation time, before any event was seen. */
    public static SourceOffset streamFrom(BsonTimestamp startAt) {
        return new SourceOffset(Phase.STREAM, null, Objects.requireNonNull(startAt, "startAt"), null, null, null);
    }

    /** Where a finished copy's stream begins: its stream start, marked as coming from a copy. */
    public static SourceOffset streamAfterCopy(BsonTimestamp copyStart) {
        return new SourceOffset(Phase.STREAM, null, null, Objects.requireNonNull(copyStart, "copyStart"), null, null, null, null, null,
                true);
    }

    /** After a resume token whose cluster time the token itself says (MongoDB 4.0+ tokens). */
    public static SourceOffset streamAfter(BsonDocument resumeToken) {
        return streamAt(StreamPosition.afterToken(resumeToken, null));
    }

    /** A stream position as an offset: after its token, or from its operation time. */
    public static SourceOffset streamAt(StreamPosition position) {
        if (!position.isToken()) {
            return streamFrom(position.clusterTime());
        }
        // after a split event, startAt says so: the stream opens at its cluster time, never at a fragment's token
        return new SourceOffset(Phase.STREAM, position.token(), position.clusterTime(), position.isSplitEvent() ? position.clusterTime() : null,
                null, null, null, null, null, false);
    }

    public static SourceOffset scan(BsonValue keyValue, BsonValue id) {
        return new SourceOffset(Phase.SCAN, null, null, null, keyValue, id);
    }

    /**
     * A scan position with both cursors: the documents' {@code (key, _id)} and the delete markers'
     * {@code (deletedAt, _id)}; any of them null when that cursor has not moved yet.
     */
    public static SourceOffset scan(BsonValue keyValue, BsonValue id, BsonValue deletedAt, BsonValue deleteMarkerId) {
        return new SourceOffset(Phase.SCAN, null, null, null, null, keyValue, id, deletedAt, deleteMarkerId, false);
    }

    public Phase phase() {
        return phase;
    }

    /** The resume token (STREAM), or null. */
    public BsonDocument token() {
        return token;
    }

    /** The stream start (BACKFILL, or STREAM before the first event, or after a split event: its cluster time), or null. */
    public BsonTimestamp startAt() {
        return startAt;
    }

    /** The last id copied by a backfill, or null before the first. */
    public BsonValue lastId() {
        return lastId;
    }

    public BsonValue scanKey() {
        return scanKey;
    }

    public BsonValue scanId() {
        return scanId;
    }

    /** The delete-marker cursor's {@code deletedAt} (SCAN), or null. */
    public BsonValue deleteAt() {
        return deleteAt;
    }

    /** Whether this STREAM position is where a finished copy's stream begins (no event seen since). */
    public boolean isAfterCopy() {
        return copied;
    }

    /**
     * Where in the change-event order this STREAM offset stands.
     *
     * @throws IllegalStateException for other phases
     * @throws IllegalArgumentException for a version 1 token that does not say its cluster time (not a
     *                                  MongoDB 4.0+ token): it cannot be ordered against other positions
     */
    public StreamPosition streamPosition() {
        if (phase != Phase.STREAM) {
            throw new IllegalStateException("only a stream offset has a stream position, this is " + this);
        }
        if (token != null) {
            return startAt != null ? StreamPosition.afterSplitEvent(token, clusterTime) : StreamPosition.afterToken(token, clusterTime);
        }
        return StreamPosition.atOperationTime(startAt);
    }

    /** The delete-marker cursor's marker {@code _id} (SCAN), or null. */
    public BsonValue deleteId() {
        return deleteId;
    }

    /**
     * This offset as a record's source offset: the same map as {@link #toMap()}, built only when first
     * read. Connect stores only the offset of the last acknowledged record of a partition at each
     * commit, so for almost every record the map is never read; building it eagerly (Extended JSON of
     * a token or an {@code _id}) was a quarter of a backfill's capture time.
     */
    public Map<String, Object> recordOffset() {
        return new DeferredOffsetMap(this::toMap);
    }

    /**
     * Peer mode: a record's offset that also keeps the origin labeler's clock, so a restart resumes labelling
     * from it (built on first read, like {@link #recordOffset()}).
     */
    public static Map<String, Object> withPeerClock(Map<String, Object> offset, BsonTimestamp clock) {
        long value = clock.getValue();
        return plus(offset, K_PEER_CLOCK, () -> value);
    }

    /** The offset with one more key, its value made only when Connect reads the map (at the record's commit). */
    private static Map<String, Object> plus(Map<String, Object> offset, String key, Supplier<Object> value) {
        return new DeferredOffsetMap(() -> {
            Map<String, Object> m = new HashMap<>(offset);
            m.put(key, value.get());
            return m;
        });
    }

    /**
     * The peer clock kept in a stored offset; null when it has none (not in peer mode, or written before it).
     *
     * @throws InvalidOffsetException when it is not a number
     */
    public static BsonTimestamp peerClock(Map<String, ?> m) {
        Object clock = m.get(K_PEER_CLOCK);
        if (clock == null) {
            return null;
        }
        if (!(clock instanceof Number n)) {
            throw new InvalidOffsetException("offset key '" + K_PEER_CLOCK
                    + "' must be a number (a BSON timestamp value: seconds << 32 | increment), got " + clock);
        }
        return new BsonTimestamp(n.longValue());
    }

    /**
     * A record's offset that also keeps where the collection's repairs stand (built on first read, like
     * {@link #recordOffset()}); the offset as it is when there is nothing to keep.
     */
    public static Map<String, Object> withRepair(Map<String, Object> offset, RepairProgress progress) {
        if (progress.isEmpty()) {
            return offset;
        }
        return plus(offset, K_REPAIR, () -> progress.toDocument().toJson(CANONICAL));
    }

    /**
     * Where the repairs of a stored offset's collection stand; {@link RepairProgress#NONE} when it says nothing.
     *
     * @throws InvalidOffsetException naming the key when it is malformed
     */
    public static RepairProgress repair(Map<String, ?> m) {
        Object raw = m == null ? null : m.get(K_REPAIR);
        if (raw == null) {
            return RepairProgress.NONE;
        }
        try {
            if (!(raw instanceof String s)) {
                throw new IllegalArgumentException("not a string");
            }
            return RepairProgress.fromDocument(BsonDocument.parse(s));
        } catch (JsonParseException | org.bson.BsonInvalidOperationException | IllegalArgumentException e) {
            throw new InvalidOffsetException("offset key '" + K_REPAIR + "' must be an Extended JSON document like {\"sig\": "
                    + "<signal _id>, \"epoch\": <timestamp>, \"last\": <_id>, \"done\": [<signal _id>...]}: " + e.getMessage());
        }
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = new HashMap<>(8);
        m.put(K_VERSION, VERSION);
        m.put(K_PHASE, phase.wireName());
        if (token != null) {
            m.put(K_TOKEN, token.toJson(CANONICAL));
        }
        if (clusterTime != null) {
            m.put(K_CLUSTER_TIME, clusterTime.getValue());
        }
        if (startAt != null) {
            m.put(K_START_AT, startAt.getValue());
        }
        if (lastId != null) {
            m.put(K_LAST_ID, OffsetValues.encode(lastId));
        }
        if (scanKey != null) {
            m.put(K_SCAN_KEY, OffsetValues.encode(scanKey));
        }
        if (scanId != null) {
            m.put(K_SCAN_ID, OffsetValues.encode(scanId));
        }
        if (deleteAt != null) {
            m.put(K_DELETE_AT, OffsetValues.encode(deleteAt));
        }
        if (deleteId != null) {
            m.put(K_DELETE_ID, OffsetValues.encode(deleteId));
        }
        if (copied) {
            m.put(K_COPIED, true);
        }
        if (split != null) {
            m.put(K_SPLIT, OffsetValues.encode(new BsonArray(split)));
        }
        if (chunkDone) {
            m.put(K_CHUNK_DONE, true);
        }
        return m;
    }

    /**
     * Reads a stored (or hand-edited) offset ({@link OffsetReader}). Validates every key, so
     * {@code alterOffsets} can reject a malformed one with a message naming the key.
     *
     * @throws InvalidOffsetException naming the bad key and what it should hold
     */
    public static SourceOffset fromMap(Map<String, ?> m) {
        return OffsetReader.read(m);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SourceOffset other && toMap().equals(other.toMap());
    }

    @Override
    public int hashCode() {
        return toMap().hashCode();
    }

    @Override
    public String toString() {
        return toMap().toString();
    }
}
