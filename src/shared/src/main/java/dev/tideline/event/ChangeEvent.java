package dev.tideline.event;

import java.util.Map;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * One change to one document: the value every Tideline change record carries.
 *
 * @param op          what happened
 * @param ns          where it happened
 * @param id          the document's {@code _id}, typed as in the source
 * @param document    the whole document after the change; null for a delete, and null when the
 *                    source could no longer read it (a later delete follows)
 * @param clusterTime the source's cluster time of the change; null for backfill copies and scans
 * @param wallTimeMillis the source's wall clock time of the change (or of the copy), epoch millis
 * @param origin      id of the cluster where the write was first made (peer replication); null
 *                    when the source does not know
 * @param shardKey    the shard key fields of the change's {@code documentKey} other than {@code _id}, in
 *                    order, named as MongoDB names them there (dotted paths for embedded fields); null
 *                    when the source collection is not sharded or the change carries no documentKey (copies)
 */
public record ChangeEvent(Op op, Namespace ns, BsonValue id, BsonDocument document,
                          BsonTimestamp clusterTime, long wallTimeMillis, String origin, BsonDocument shardKey) {
    private static final String ID = "_id";

    public ChangeEvent {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(ns, "ns");
        Objects.requireNonNull(id, "id");
        if (shardKey != null && shardKey.isEmpty()) {
            shardKey = null;
        }
    }

    /** A change without shard key fields (an unsharded source collection, or a copy). */
    public ChangeEvent(Op op, Namespace ns, BsonValue id, BsonDocument document, BsonTimestamp clusterTime,
                       long wallTimeMillis, String origin) {
        this(op, ns, id, document, clusterTime, wallTimeMillis, origin, null);
    }

    /** A change whose origin the source does not know (every change but peer mode's, which tags it later). */
    public static ChangeEvent of(Op op, Namespace ns, BsonValue id, BsonDocument document, BsonTimestamp clusterTime,
                                 long wallTimeMillis) {
        return new ChangeEvent(op, ns, id, document, clusterTime, wallTimeMillis, null);
    }

    /** A document as a copy, scan or repair read it ({@link Op#READ}), origin unknown. */
    public static ChangeEvent read(Namespace ns, BsonValue id, BsonDocument document, BsonTimestamp clusterTime,
                                   long wallTimeMillis) {
        return of(Op.READ, ns, id, document, clusterTime, wallTimeMillis);
    }

    /** A delete (no document), origin unknown. */
    public static ChangeEvent delete(Namespace ns, BsonValue id, BsonTimestamp clusterTime, long wallTimeMillis) {
        return of(Op.DELETE, ns, id, null, clusterTime, wallTimeMillis);
    }

    public boolean isDelete() {
        return op == Op.DELETE;
    }

    public ChangeEvent withOrigin(String newOrigin) {
        return new ChangeEvent(op, ns, id, document, clusterTime, wallTimeMillis, newOrigin, shardKey);
    }

    /** @param documentKey a change stream event's {@code documentKey}, or null; see {@link #shardKeyOf} */
    public ChangeEvent withDocumentKey(BsonDocument documentKey) {
        return new ChangeEvent(op, ns, id, document, clusterTime, wallTimeMillis, origin, shardKeyOf(documentKey));
    }

    /**
     * The shard key fields of a change stream event's {@code documentKey}: every field but {@code _id}, in
     * order; null when there are none. On a sharded collection MongoDB puts the full shard key there
     * (https://www.mongodb.com/docs/manual/reference/change-events/insert/#description, {@code documentKey}),
     * dotted paths as field names; on an unsharded one only {@code _id}. A document without {@code _id}
     * is no document key (MongoDB always names {@code _id} there) and says nothing of a shard key: null.
     */
    public static BsonDocument shardKeyOf(BsonDocument documentKey) {
        if (documentKey == null || !documentKey.containsKey(ID) || documentKey.size() == 1) {
            return null;
        }
        BsonDocument fields = new BsonDocument();
        for (Map.Entry<String, BsonValue> e : documentKey.entrySet()) {
            if (!e.getKey().equals(ID)) {
                fields.append(e.getKey(), e.getValue());
            }
        }
        return fields;
    }
}
