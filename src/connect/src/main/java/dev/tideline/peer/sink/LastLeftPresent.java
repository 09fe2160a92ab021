package dev.tideline.peer.sink;

import dev.tideline.peer.DocState;
import dev.tideline.peer.LruMap;
import dev.tideline.peer.Version;
import java.util.Map;
import org.bson.BsonTimestamp;

/**
 * Documents this task last left present (bounded): one found absent without a tombstone was deleted
 * locally, and the peer changes wait for this cluster's own record of that delete instead of
 * re-creating the document for a moment.
 *
 * <p>Bounded: beyond {@value #MEMORY} documents the least recently used are forgotten.
 */
final class LastLeftPresent {
    static final int MEMORY = LruMap.DOCUMENTS;

    /**
     * A document this task last left present, with that version (null: a local write not stamped yet) and, when this
     * task stamped that version on a local write, the cluster time of the own record that revealed it (else null).
     */
    private record Left(Version version, BsonTimestamp revealedAt) {
    }

    private final Map<PeerChange.DocKey, Left> left = new LruMap<>(MEMORY);

    /**
     * What a document read absent is, with the tombstone kept for it: deleted locally and not recorded yet when this
     * task last left it present (with the version it left).
     */
    DocState.Absent absent(PeerChange.DocKey key, Version tombstone) {
        return new DocState.Absent(tombstone, left.containsKey(key), left.containsKey(key) ? left.get(key).version() : null);
    }

    /** The reveal time this task remembers for the document, when the document still holds the version it stamped then. */
    BsonTimestamp revealedAt(PeerChange.DocKey key, DocState start) {
        Left l = left.get(key);
        return l != null && l.revealedAt() != null && start instanceof DocState.Present p && p.version() != null
                && p.version().equals(l.version()) ? l.revealedAt() : null;
    }

    /**
     * What this task left the document as after a fold: present (with the time its stamp was revealed, if this task
     * stamped it), deleted locally without its own record yet (the version it last held), or neither (forgotten).
     */
    void remember(PeerChange.DocKey key, DocState end, BsonTimestamp revealedAt) {
        if (end instanceof DocState.Present p) {
            left.put(key, new Left(p.version(), revealedAt));
        } else if (((DocState.Absent) end).deletedUnrecorded()) {
            left.put(key, new Left(((DocState.Absent) end).lastPresent(), null));
        } else {
            left.remove(key);
        }
    }

    int size() {
        return left.size();
    }
}
