package dev.tideline.source.capture;

import static dev.tideline.source.capture.SourceOffset.K_CHUNK_DONE;
import static dev.tideline.source.capture.SourceOffset.K_CLUSTER_TIME;
import static dev.tideline.source.capture.SourceOffset.K_COPIED;
import static dev.tideline.source.capture.SourceOffset.K_DELETE_AT;
import static dev.tideline.source.capture.SourceOffset.K_DELETE_ID;
import static dev.tideline.source.capture.SourceOffset.K_LAST_ID;
import static dev.tideline.source.capture.SourceOffset.K_PHASE;
import static dev.tideline.source.capture.SourceOffset.K_RESNAPSHOT;
import static dev.tideline.source.capture.SourceOffset.K_SCAN_ID;
import static dev.tideline.source.capture.SourceOffset.K_SCAN_KEY;
import static dev.tideline.source.capture.SourceOffset.K_SPLIT;
import static dev.tideline.source.capture.SourceOffset.K_START_AT;
import static dev.tideline.source.capture.SourceOffset.K_TOKEN;
import static dev.tideline.source.capture.SourceOffset.K_VERSION;
import static dev.tideline.source.capture.SourceOffset.VERSION;
import static dev.tideline.source.capture.SourceOffset.VERSION_1;

import dev.tideline.source.capture.SourceOffset.Phase;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.json.JsonParseException;

/**
 * Reads a stored (or hand-edited) offset map into a {@link SourceOffset}, validating every key that
 * {@link SourceOffset} defines, so {@code alterOffsets} can reject a malformed one naming the key.
 */
final class OffsetReader {
    private OffsetReader() {
    }

    /** @throws InvalidOffsetException naming the bad key and what it should hold */
    static SourceOffset read(Map<String, ?> m) {
        if (m == null) {
            throw new InvalidOffsetException("offset is empty");
        }
        Object v = m.get(K_VERSION);
        if (!(v instanceof Number n) || (n.intValue() != VERSION && n.intValue() != VERSION_1)) {
            throw new InvalidOffsetException("offset key '" + K_VERSION + "' must be " + VERSION + " (or " + VERSION_1
                    + ", written by the first release), got " + v);
        }
        SourceOffset.peerClock(m); // validated here too, so a hand-edited one is refused naming the key
        SourceOffset.repair(m);
        Object phaseName = m.get(K_PHASE);
        Phase phase = null;
        for (Phase p : Phase.values()) {
            if (p.wireName().equals(phaseName)) {
                phase = p;
            }
        }
        if (phase == null) {
            throw new InvalidOffsetException("offset key '" + K_PHASE + "' must be one of backfill, stream, scan, got " + phaseName);
        }
        BsonTimestamp startAt = null;
        Object start = m.get(K_START_AT);
        if (start != null) {
            // seconds are unsigned: from 2038 (t >= 2^31) the stored long is negative, and still valid
            if (!(start instanceof Number sn) || sn.longValue() == 0) {
                throw new InvalidOffsetException("offset key '" + K_START_AT
                        + "' must be a non-zero number (a BSON timestamp value: seconds << 32 | increment), got " + start);
            }
            startAt = new BsonTimestamp(sn.longValue());
        }
        BsonTimestamp clusterTime = null;
        Object ct = m.get(K_CLUSTER_TIME);
        if (ct != null) {
            if (!(ct instanceof Number cn) || cn.longValue() == 0) {
                throw new InvalidOffsetException("offset key '" + K_CLUSTER_TIME
                        + "' must be a non-zero number (the token's cluster time as a BSON timestamp value), got " + ct);
            }
            clusterTime = new BsonTimestamp(cn.longValue());
        }
        boolean copiedFlag = OffsetValues.flag(m, K_COPIED);
        switch (phase) {
            case BACKFILL:
                if (startAt == null) {
                    throw new InvalidOffsetException("offset key '" + K_START_AT + "' is required in phase backfill");
                }
                OffsetValues.flag(m, K_RESNAPSHOT); // validated, then ignored (version 1)
                boolean done = OffsetValues.flag(m, K_CHUNK_DONE);
                BsonValue splitBounds = OffsetValues.optional(m, K_SPLIT);
                if (splitBounds != null && !splitBounds.isArray()) {
                    throw new InvalidOffsetException("offset key '" + K_SPLIT + "' must be an Extended JSON text like {\"v\": [<_id>...]}, "
                            + "got " + m.get(K_SPLIT));
                }
                List<BsonValue> bounds = splitBounds == null ? null : splitBounds.asArray().getValues();
                if (bounds != null) {
                    try {
                        new CopyPlan(startAt, bounds);
                    } catch (IllegalArgumentException e) {
                        throw new InvalidOffsetException("offset key '" + K_SPLIT + "': " + e.getMessage());
                    }
                }
                return new SourceOffset(Phase.BACKFILL, null, null, startAt, OffsetValues.optional(m, K_LAST_ID), null, null, null, null,
                        false, bounds, done);
            case STREAM: {
                Object token = m.get(K_TOKEN);
                if (token != null) {
                    if (!(token instanceof String s)) {
                        throw new InvalidOffsetException("offset key '" + K_TOKEN + "' must be a resume token as JSON text, got " + token);
                    }
                    BsonDocument parsed;
                    try {
                        parsed = BsonDocument.parse(s);
                    } catch (JsonParseException | org.bson.BsonInvalidOperationException | IllegalArgumentException
                             | java.time.DateTimeException e) {
                        throw new InvalidOffsetException("offset key '" + K_TOKEN + "' is not a resume token (JSON document): " + e.getMessage());
                    }
                    BsonTimestamp time = clusterTime != null ? clusterTime : StreamPosition.clusterTimeOf(parsed).orElse(null);
                    if (time == null) {
                        throw new InvalidOffsetException("offset key '" + K_TOKEN + "' holds a resume token that does not say its "
                                + "cluster time (MongoDB 4.0+ tokens are {\"_data\": \"<hex>\"}): add offset key '" + K_CLUSTER_TIME
                                + "' (its cluster time as a BSON timestamp value: seconds << 32 | increment), or stream from an "
                                + "operation time with '" + K_START_AT + "'");
                    }
                    // startAt with a token: after an event that arrived in fragments, opened at its cluster time; so is a
                    // fragment's token an older version stored as the position (re-anchored: never resumed there)
                    boolean splitEvent = startAt != null || FragmentToken.isFragment(parsed);
                    return new SourceOffset(Phase.STREAM, parsed, time, splitEvent ? time : null, null, null, null, null, null, false,
                            null, false);
                }
                if (startAt == null) {
                    throw new InvalidOffsetException("phase stream needs offset key '" + K_TOKEN + "' (a resume token) or '" + K_START_AT + "' (an operation time)");
                }
                return copiedFlag ? SourceOffset.streamAfterCopy(startAt) : SourceOffset.streamFrom(startAt);
            }
            default:
                return SourceOffset.scan(OffsetValues.optional(m, K_SCAN_KEY), OffsetValues.optional(m, K_SCAN_ID),
                        OffsetValues.optional(m, K_DELETE_AT), OffsetValues.optional(m, K_DELETE_ID));
        }
    }
}
