package dev.tideline.event;

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
 */
public record ChangeEvent(Op op, Namespace ns, BsonValue id, BsonDocument document,
                          BsonTimestamp clusterTime, long wallTimeMillis, String origin) {
    public ChangeEvent {
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(ns, "ns");
        Objects.requireNonNull(id, "id");
    }

    public boolean isDelete() {
        return op == Op.DELETE;
    }

    public ChangeEvent withOrigin(String newOrigin) {
        return new ChangeEvent(op, ns, id, document, clusterTime, wallTimeMillis, newOrigin);
    }
}
