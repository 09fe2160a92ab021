package dev.tideline.peer.sink;

import dev.tideline.peer.LruMap;
import java.util.Map;
import org.bson.BsonTimestamp;

/**
 * What this cluster's change stream shows of its documents that its own records, which come later through Kafka,
 * have not reached yet ({@link LocalChangeWatcher} feeds it): the latest delete and the latest write per document,
 * at a cluster time no own record of the document processed so far has reached. Pure: the caller feeds it changes
 * and own records.
 *
 * <p>Why deletes: an application's delete leaves nothing a read shows. Without the barrier a peer's older write to
 * a document found absent re-creates it until the record of the newer local delete arrives (an undone
 * resurrection). With it, the peer's change waits for that record and is then decided against the delete's
 * tombstone ({@link #waitingFor}).
 *
 * <p>Why writes: an update's document is looked up when the source reads the event, so an own record of an
 * earlier update can carry the content of a later one. Stamped with the earlier record's version, that later write
 * would lose to a peer's write made between the two, for a moment (until its own record arrives and writes it back).
 * With the barrier, an own record carrying the content here waits while a later local write of the document is
 * known ({@link #writtenAfter}): the later write's own record stamps it with its real version.
 *
 * <p>Bounded: beyond {@value #MEMORY} documents the least recently touched are forgotten (a link lagging that far
 * behind loses the barrier for them, not convergence).
 */
final class LocalChangeBarrier {
    static final int MEMORY = LruMap.DOCUMENTS;

    /** the latest local delete seen per document, while no own record at or after it was processed */
    private final Map<PeerChange.DocKey, BsonTimestamp> deletes = new LruMap<>(MEMORY);
    /** the latest write (insert, update, replace) seen per document, while no own record at or after it was processed */
    private final Map<PeerChange.DocKey, BsonTimestamp> writes = new LruMap<>(MEMORY);
    /** the latest cluster time of this cluster's own records processed per document */
    private final Map<PeerChange.DocKey, BsonTimestamp> reached = new LruMap<>(MEMORY);

    /** A delete of this document on this cluster, at {@code at} (its change event's cluster time). */
    void deletedHere(PeerChange.DocKey key, BsonTimestamp at) {
        note(deletes, key, at);
    }

    /** A write of this document on this cluster (anyone's, this sink's included), at {@code at}. */
    void writtenHere(PeerChange.DocKey key, BsonTimestamp at) {
        note(writes, key, at);
    }

    private void note(Map<PeerChange.DocKey, BsonTimestamp> unrecorded, PeerChange.DocKey key, BsonTimestamp at) {
        BsonTimestamp own = reached.get(key);
        if (own != null && own.compareTo(at) >= 0) {
            return; // its record was processed already
        }
        unrecorded.merge(key, at, LocalChangeBarrier::max);
    }

    /** One of this cluster's own records of this document was processed; {@code at} is its event's cluster time. */
    void ownRecordProcessed(PeerChange.DocKey key, BsonTimestamp at) {
        BsonTimestamp own = reached.merge(key, at, LocalChangeBarrier::max);
        forgetUpTo(deletes, key, own);
        forgetUpTo(writes, key, own);
    }

    private static void forgetUpTo(Map<PeerChange.DocKey, BsonTimestamp> unrecorded, PeerChange.DocKey key, BsonTimestamp own) {
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
        return unreached(deletes.get(key), ownSince);
    }

    /**
     * @param recordTime the cluster time of an own record of this document
     * @param ownSince   as for {@link #waitingFor}
     * @return the cluster time of a local write of this document later than {@code recordTime} that no own record has
     *         reached yet; null when none
     */
    BsonTimestamp writtenAfter(PeerChange.DocKey key, BsonTimestamp recordTime, BsonTimestamp ownSince) {
        BsonTimestamp written = unreached(writes.get(key), ownSince);
        return written != null && recordTime != null && written.compareTo(recordTime) > 0 ? written : null;
    }

    private static BsonTimestamp unreached(BsonTimestamp waiting, BsonTimestamp ownSince) {
        return waiting == null || ownSince != null && ownSince.compareTo(waiting) >= 0 ? null : waiting;
    }

    /** How many documents a peer change would wait on for a local delete. */
    int waiting() {
        return deletes.size();
    }

    private static BsonTimestamp max(BsonTimestamp a, BsonTimestamp b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
