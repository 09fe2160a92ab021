package dev.tideline.peer.sink;

import dev.tideline.event.Namespace;
import dev.tideline.peer.Incoming;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * One record on the peer path: where it lands, what it says, and the document it writes (null for a
 * delete). {@code heldReason}, {@code heldSince} and {@code refused} are set while the record waits.
 */
final class PeerChange {
    final SinkRecord record;
    final Namespace destination;
    final BsonValue id;
    final Incoming incoming;
    final BsonDocument document;
    /** the document's tenant (header tl.tenant), null when the record has none */
    final String tenant;
    /** the cluster time of the change event on the cluster whose source emitted it; null when the record has none */
    final BsonTimestamp sourceTime;
    String heldReason;
    /** when this record was first held (epoch ms), 0 when it is not */
    long heldSince;
    /** held because the destination refused the write (not because it waits for this cluster's own record) */
    boolean refused;

    PeerChange(SinkRecord record, Namespace destination, BsonValue id, Incoming incoming, BsonDocument document, String tenant,
               BsonTimestamp sourceTime) {
        this.record = record;
        this.destination = destination;
        this.id = id;
        this.incoming = incoming;
        this.document = document;
        this.tenant = tenant;
        this.sourceTime = sourceTime;
    }

    DocKey key() {
        return new DocKey(destination, id);
    }

    record DocKey(Namespace ns, BsonValue id) {
    }
}
