package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code find} with {@code readConcern: {level: "snapshot", atClusterTime: t}} outside a transaction, as MongoDB 5.0
 * answers it (https://www.mongodb.com/docs/manual/reference/read-concern-snapshot/): the documents as they were at
 * {@code t} (without {@code atClusterTime}: now), the time read in the reply's {@code cursor.atClusterTime}. A time
 * after the server's cluster time is refused (InvalidOptions, as {@code afterClusterTime} is), one older than its
 * history (minSnapshotHistoryWindowInSeconds, 300 s by default, or the oldest entry its oplog still holds) answers
 * SnapshotTooOld, and a server without replication refuses the level. Before this, the stand-in answered such a read
 * with the documents as they are now.
 *
 * <p>The stand-in reads at a point in time through the {@code _id} index only ({@link DocumentHistory}): a filter
 * that is an {@code _id} equality ({@code {_id: v}}, {@code $eq}, {@code $in}), without a projection. Any other is
 * refused (NotImplemented) rather than answered from the present.
 */
final class PointInTimeReads {
    /** MongoDB's default minSnapshotHistoryWindowInSeconds. */
    static final long HISTORY_WINDOW_SECONDS = 300;

    private PointInTimeReads() {
    }

    /** Whether the command is a {@code find} at the {@code snapshot} level (outside a transaction: the caller checks). */
    static boolean isOne(String lowerCaseName, Document command) {
        return lowerCaseName.equals("find") && command.get("readConcern") instanceof Document rc && "snapshot".equals(rc.get("level"));
    }

    /** @param oplog the server's oplog, null for a server without replication */
    static Document find(String database, Document command, IndexedOplog oplog, Clock clock) {
        if (oplog == null) {
            throw ServerErrors.error(ServerErrors.ILLEGAL_OPERATION, "IllegalOperation",
                    "readConcern level snapshot is not supported on a server without replication");
        }
        Document readConcern = (Document) command.get("readConcern");
        BsonTimestamp current = oplog.operationTime();
        Object requested = readConcern.get("atClusterTime");
        if (requested != null && !(requested instanceof BsonTimestamp)) {
            throw ServerErrors.error(14, "TypeMismatch", "readConcern.atClusterTime must be a Timestamp");
        }
        BsonTimestamp at = requested == null ? current : (BsonTimestamp) requested;
        if (at.compareTo(current) > 0) {
            throw ServerErrors.invalidOptions("readConcern atClusterTime value must not be greater than the current clusterTime. "
                    + "Requested clusterTime: " + at + "; current clusterTime: " + current);
        }
        if (Integer.toUnsignedLong(at.getTime()) < clock.instant().getEpochSecond() - HISTORY_WINDOW_SECONDS) {
            throw ServerErrors.snapshotTooOld(at, "older than minSnapshotHistoryWindowInSeconds (" + HISTORY_WINDOW_SECONDS + ")");
        }
        Object filter = command.get("filter");
        List<Object> ids = filter instanceof Map<?, ?> f && f.size() == 1 && f.containsKey("_id") ? IdLookup.candidates(f) : null;
        if (ids == null || command.get("projection") instanceof Map<?, ?> p && !p.isEmpty()) {
            throw ServerErrors.error(ServerErrors.NOT_IMPLEMENTED, "NotImplemented", "the stand-in reads at a point in time "
                    + "through the _id index only: a filter that is an _id equality, without a projection (got " + command
                    + "; docs/mongodb-stand-in.md)");
        }
        String ns = database + "." + command.get("find");
        List<Document> batch = new ArrayList<>();
        for (Object id : ids) {
            Document then = oplog.documentAt(ns, id, at.getValue());
            if (then != null) {
                batch.add(then.cloneDeeply());
            }
        }
        Document cursor = new Document("firstBatch", batch).append("id", 0L).append("ns", ns).append("atClusterTime", at);
        return new Document("cursor", cursor).append("ok", 1.0);
    }
}
