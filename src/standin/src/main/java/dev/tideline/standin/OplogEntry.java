package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Document;
import java.time.Instant;

/**
 * One write as the stand-in's oplog keeps it, shaped after MongoDB's oplog entries
 * (https://www.mongodb.com/docs/manual/core/replica-set-oplog/): a timestamp, a namespace and what was done.
 *
 * @param ts        the entry's timestamp (a BSON Timestamp's 64-bit value): its cluster time
 * @param ns        {@code db.coll}, or {@code db.$cmd} for a command
 * @param o         the document (insert, replace), the update's description (update), the command
 *                  ({@code {drop: coll}}, {@code {renameCollection: "db.a", to: "db.b"}}, {@code {dropDatabase: 1}},
 *                  {@code {create: coll, ...}}, {@code {collMod: coll, ...}}, {@code {createIndexes: coll, ...}}), or null
 * @param id        the document's {@code _id} (CRUD entries)
 * @param preImage  the document before an update, replace or delete, when its collection records
 *                  pre-images (https://www.mongodb.com/docs/manual/changeStreams/#change-streams-with-document-pre--and-post-images)
 * @param postImage the document after an update or replace, when its collection records post-images
 * @param bytes     the entry's approximate BSON size, for an oplog capped by size (0 when not measured)
 * @param txn       the operations of a committed transaction, for its {@code applyOps} command entry; null otherwise
 * @param fromMigrate whether a chunk migration wrote it ({@code fromMigrate: true} in MongoDB's oplog): the
 *                    recipient shard's inserts and the donor's range deletion, which change streams leave out
 *                    unless opened with {@code showMigrationEvents} ({@link ChunkMigration})
 */
public record OplogEntry(long ts, Instant wall, Op op, String ns, Document o, Object id, Document preImage,
                         Document postImage, long bytes, Transaction txn, boolean fromMigrate) {
    /**
     * What MongoDB logs on committing a multi-document transaction: one {@code applyOps} command entry at the commit's
     * timestamp, with the session's {@code lsid} and {@code txnNumber} beside it and the operations, in the order they
     * ran, inside it (https://www.mongodb.com/docs/v4.0/core/transactions-production-consideration/#oplog-size-limit;
     * from 4.2 a transaction over 16 MB takes several entries, which the stand-in never needs). Change events: every
     * event of a transaction has the commit's {@code clusterTime} and carries {@code lsid} and {@code txnNumber}
     * (https://www.mongodb.com/docs/manual/reference/change-events/).
     *
     * @param ops the operations, stamped with the commit's timestamp; their index is each event's {@code txnOpIndex}
     */
    public record Transaction(Document lsid, long txnNumber, java.util.List<OplogEntry> ops) {
    }

    /** An entry an application's write or command made (not a chunk migration, not a transaction's commit). */
    public OplogEntry(long ts, Instant wall, Op op, String ns, Document o, Object id, Document preImage, Document postImage,
                      long bytes) {
        this(ts, wall, op, ns, o, id, preImage, postImage, bytes, null, false);
    }

    /** This operation of a transaction, stamped with the transaction's commit time. */
    OplogEntry committedAt(long commitTs, Instant commitWall) {
        return new OplogEntry(commitTs, commitWall, op, ns, o, id, preImage, postImage, bytes, null, false);
    }

    /** MongoDB's oplog {@code op} codes, with a replacement kept apart from an update (MongoDB reports it as {@code replace}). */
    public enum Op { INSERT, UPDATE, REPLACE, DELETE, COMMAND }

    public BsonTimestamp clusterTime() {
        return new BsonTimestamp(ts);
    }

    public String database() {
        return Namespaces.database(ns);
    }

    /** The collection a CRUD entry wrote; the command's name for a command entry. */
    public String collection() {
        return op == Op.COMMAND ? o.keySet().iterator().next() : Namespaces.collection(ns);
    }

    /** The command's name ({@code drop}, {@code renameCollection}, ...), for a command entry. */
    public String command() {
        return o.keySet().iterator().next();
    }
}
