package dev.tideline.sink.decode;

import dev.tideline.event.Namespace;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * One record, read: what to do to which document. Whatever form the record came in (envelope,
 * plain document, tombstone, foreign change event), the rest of the sink sees only this.
 *
 * @param record   the record it came from (for error reports)
 * @param kind     write (replace by _id), delete, or update (a partial change of a document the
 *                 destination must already hold)
 * @param sourceNs where the change happened; null when the record does not say (plain documents, tombstones)
 * @param id       the document's {@code _id}
 * @param document the whole document for a write; null for a delete or an update
 * @param version  the change's version for the stale-write guard (source cluster time, or the
 *                 configured version field); null when the record carries none
 * @param updates  for an update: the change descriptions to apply in order (several once changes of
 *                 one batch are folded together); empty otherwise
 * @param shardKey the shard key fields of the source's {@code documentKey} besides {@code _id} (field
 *                 name or dotted path → value), empty when the record carries none
 * @param updateRecords for an update: the record each description came from (one per description: the
 *                 same record, or the records folded together), so that one refused description is
 *                 reported as its own record; empty otherwise
 */
public record SinkChange(SinkRecord record, Kind kind, Namespace sourceNs, BsonValue id, BsonDocument document,
                         BsonValue version, List<UpdateDescription> updates, BsonDocument shardKey,
                         List<SinkRecord> updateRecords) implements Decoded {
    public enum Kind { WRITE, DELETE, UPDATE }

    public SinkChange {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
        updates = List.copyOf(updates);
        updateRecords = List.copyOf(updateRecords);
        shardKey = shardKey == null ? new BsonDocument() : shardKey;
        if ((kind == Kind.WRITE) != (document != null)) {
            throw new IllegalArgumentException("a write carries a document, a delete or an update does not");
        }
        if ((kind == Kind.UPDATE) != !updates.isEmpty()) {
            throw new IllegalArgumentException("an update carries its descriptions, a write or a delete does not");
        }
        if (updateRecords.size() != updates.size()) {
            throw new IllegalArgumentException("one record per update description, got " + updateRecords.size() + " for "
                    + updates.size());
        }
    }

    /** A change whose update descriptions (if any) all come from {@code record}. */
    public SinkChange(SinkRecord record, Kind kind, Namespace sourceNs, BsonValue id, BsonDocument document, BsonValue version,
                      List<UpdateDescription> updates, BsonDocument shardKey) {
        this(record, kind, sourceNs, id, document, version, updates, shardKey, java.util.Collections.nCopies(updates.size(), record));
    }

    /** A change without shard key fields. */
    public SinkChange(SinkRecord record, Kind kind, Namespace sourceNs, BsonValue id, BsonDocument document, BsonValue version,
                      List<UpdateDescription> updates) {
        this(record, kind, sourceNs, id, document, version, updates, null);
    }

    /** A whole-document write or a delete, without shard key fields. */
    public SinkChange(SinkRecord record, Kind kind, Namespace sourceNs, BsonValue id, BsonDocument document, BsonValue version) {
        this(record, kind, sourceNs, id, document, version, List.of());
    }

    /** A partial update: the source said what changed, not what the document now is. */
    public static SinkChange update(SinkRecord record, Namespace sourceNs, BsonValue id, UpdateDescription description,
                                    BsonValue version) {
        return new SinkChange(record, Kind.UPDATE, sourceNs, id, null, version, List.of(description));
    }

    /** The same change with the shard key fields the record carries (null: none). */
    public SinkChange withShardKey(BsonDocument fields) {
        return new SinkChange(record, kind, sourceNs, id, document, version, updates, fields, updateRecords);
    }

    /** The same change as a whole-document write of {@code newDocument} (a partial update made whole), keeping the rest. */
    public SinkChange asWrite(BsonDocument newDocument) {
        return new SinkChange(record, Kind.WRITE, sourceNs, id, newDocument, version, List.of(), shardKey, List.of());
    }

    /**
     * The stale-write guard's tie-breaker between changes of one cluster time: the change's index in its transaction
     * ({@link TxnOpHeader}), null when the record carries none or its version is not a cluster time.
     *
     * @throws dev.tideline.event.RefusedRecordException when the header is not a valid index (checked at decoding)
     */
    public Long txnOpIndex() {
        return version != null && version.isTimestamp() ? TxnOpHeader.of(record) : null;
    }

    public boolean isDelete() {
        return kind == Kind.DELETE;
    }

    public boolean isPartial() {
        return kind == Kind.UPDATE;
    }
}
