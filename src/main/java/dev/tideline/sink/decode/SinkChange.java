package dev.tideline.sink.decode;

import dev.tideline.event.Namespace;
import java.util.Objects;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * One record, read: what to do to which document. Whatever form the record came in (envelope,
 * plain document, tombstone), the rest of the sink sees only this.
 *
 * @param record   the record it came from (for error reports)
 * @param kind     write (replace by _id) or delete
 * @param sourceNs where the change happened; null when the record does not say (plain documents, tombstones)
 * @param id       the document's {@code _id}
 * @param document the whole document for a write; null for a delete
 * @param version  the change's version for the stale-write guard (source cluster time, or the
 *                 configured version field); null when the record carries none
 */
public record SinkChange(SinkRecord record, Kind kind, Namespace sourceNs, BsonValue id, BsonDocument document,
                         BsonValue version) implements Decoded {
    public enum Kind { WRITE, DELETE }

    public SinkChange {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
        if ((kind == Kind.WRITE) != (document != null)) {
            throw new IllegalArgumentException("a write carries a document, a delete does not");
        }
    }

    public boolean isDelete() {
        return kind == Kind.DELETE;
    }
}
