package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import dev.tideline.standin.OplogEntry.Op;
import java.util.Collection;

/**
 * A chunk migration of a sharded cluster, as its shards' oplogs record it: the recipient shard inserts each
 * document of the chunk, then the donor's range deleter removes them, every one of those entries marked
 * {@code fromMigrate: true} (https://www.mongodb.com/docs/manual/core/sharding-balancer-administration/,
 * "Chunk Migration Procedure"). The documents themselves do not change: the cluster holds the same data, on
 * another shard. The stand-in is one deployment, so a migration leaves every document where it is and logs
 * both shards' entries.
 *
 * <p>A change stream leaves those entries out unless it was opened with the internal option
 * {@code showMigrationEvents: true}, which only a shard's own members take (mongos refuses it with 31123):
 * https://jira.mongodb.org/browse/SERVER-38682, https://jira.mongodb.org/browse/SERVER-88167
 * ({@link ChangeEvents#of}). Through mongos, change streams never show migrations
 * (https://www.mongodb.com/docs/manual/administration/change-streams-production-recommendations/#sharded-clusters).
 */
final class ChunkMigration {
    private ChunkMigration() {
    }

    /**
     * Logs the migration of the documents of {@code namespace} with the given {@code _id}s (those that exist).
     *
     * @return how many documents the chunk held
     */
    static int migrate(IndexedOplog oplog, String namespace, Collection<?> ids) {
        int moved = 0;
        for (Object id : ids) {
            Document current = oplog.current(namespace, id);
            if (current == null) {
                continue;
            }
            oplog.appendFromMigrate(Op.INSERT, namespace, current.cloneDeeply(), id); // the recipient's copy
            moved++;
        }
        for (Object id : ids) {
            if (oplog.current(namespace, id) != null) {
                oplog.appendFromMigrate(Op.DELETE, namespace, null, id); // the donor's range deletion
            }
        }
        return moved;
    }
}
