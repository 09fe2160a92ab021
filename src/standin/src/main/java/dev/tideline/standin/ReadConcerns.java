package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;

/**
 * A command's {@code readConcern}, checked as a single-node replica set checks it
 * (https://www.mongodb.com/docs/manual/reference/read-concern/): any level is served from the one node,
 * which is causally consistent with itself, so {@code majority} and {@code afterClusterTime} up to the
 * node's current cluster time are satisfied at once; a later {@code afterClusterTime} is refused
 * (InvalidOptions, 72), and a server without replication (no oplog) refuses {@code afterClusterTime} at all.
 */
public final class ReadConcerns {
    private ReadConcerns() {
    }

    /** @param oplog the server's oplog, null for a standalone server */
    public static void check(Document command, IndexedOplog oplog) {
        if (!(command.get("readConcern") instanceof Document readConcern) || !readConcern.containsKey("afterClusterTime")) {
            return;
        }
        if (oplog == null) {
            throw ServerErrors.invalidOptions("Cannot specify afterClusterTime readConcern without replication enabled");
        }
        if (!(readConcern.get("afterClusterTime") instanceof BsonTimestamp after)) {
            throw ServerErrors.error(14, "TypeMismatch", "readConcern.afterClusterTime must be a Timestamp");
        }
        BsonTimestamp current = oplog.operationTime();
        if (after.compareTo(current) > 0) {
            throw ServerErrors.invalidOptions("readConcern afterClusterTime value must not be greater than the current clusterTime. "
                    + "Requested clusterTime: " + after + "; current clusterTime: " + current);
        }
    }
}
