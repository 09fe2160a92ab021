package dev.tideline.peer.sink;

import dev.tideline.peer.LruMap;
import java.util.Map;
import org.bson.BsonTimestamp;

/**
 * Which documents a peer's change must wait on: deleted on this cluster (seen on its change stream,
 * {@link LocalDeleteWatcher}) at a cluster time this cluster's own records of the document have not
 * reached yet.
 *
 * <p>Why: an application's delete leaves nothing a read shows, and the sink learns of local writes
 * only from this cluster's own records, which come later through Kafka. Without the barrier a peer's
 * older write to a document found absent re-creates it until the record of the newer local delete
 * arrives (an undone resurrection). With it, the peer's change waits for that record and is then
 * decided against the delete's tombstone. Pure: the caller feeds it deletes and own records.
 *
 * <p>Bounded: beyond {@value #MEMORY} documents the least recently touched are forgotten (a link
 * lagging that far behind loses the barrier for them, not correctness of convergence).
 */
final class LocalDeleteBarrier {
    static final int MEMORY = LruMap.DOCUMENTS;

    /** the latest local delete seen per document, while no own record at or after it was processed */
    private final Map<PeerChange.DocKey, BsonTimestamp> unrecorded = new LruMap<>(MEMORY);
    /** the latest cluster time of this cluster's own records processed per document */
    private final Map<PeerChange.DocKey, BsonTimestamp> reached = new LruMap<>(MEMORY);

    /** A delete of this document on this cluster, at {@code at} (its change event's cluster time). */
    void deletedHere(PeerChange.DocKey key, BsonTimestamp at) {
        BsonTimestamp own = reached.get(key);
        if (own != null && own.compareTo(at) >= 0) {
            return; // its record was processed already
        }
        unrecorded.merge(key, at, LocalDeleteBarrier::max);
    }

    /** One of this cluster's own records of this document was processed; {@code at} is its event's cluster time. */
    void ownRecordProcessed(PeerChange.DocKey key, BsonTimestamp at) {
        BsonTimestamp own = reached.merge(key, at, LocalDeleteBarrier::max);
        BsonTimestamp waiting = unrecorded.get(key);
        if (waiting != null && own.compareTo(waiting) >= 0) {
            unrecorded.remove(key);
        }
    }

    /**
     * @param ownSince the cluster time of own records of this document processed since the last
     *                 {@link #ownRecordProcessed} (in the same fold), null when none
     * @return the cluster time of the local delete a peer change of this document waits for; null when none
     */
    BsonTimestamp waitingFor(PeerChange.DocKey key, BsonTimestamp ownSince) {
        BsonTimestamp waiting = unrecorded.get(key);
        return waiting == null || ownSince != null && ownSince.compareTo(waiting) >= 0 ? null : waiting;
    }

    int waiting() {
        return unrecorded.size();
    }

    private static BsonTimestamp max(BsonTimestamp a, BsonTimestamp b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
