package dev.tideline.peer;

import java.util.function.Predicate;
import org.bson.BsonDocument;

/**
 * Decides where a document's content was written, from the document alone: a document that carries
 * an authentic stamp whose hash equals the hash of its content is exactly what a peer sink wrote, so
 * its origin is the stamp's origin; anything else (no stamp, a stamp an application's later write left
 * stale, or a stamp that does not authenticate: forged, copied from elsewhere, or made before the link
 * had its key) was written locally.
 */
public final class OriginDetector {
    private OriginDetector() {
    }

    /**
     * @param content    hash of the document without its stamp
     * @param stamp      the document's stamp when valid (authentic and its hash matches), else null: a local write
     * @param stale      the document's authentic stamp when it no longer matches (the version the local write
     *                   was based on), else null
     * @param unverified a stamp whose hash matches but which does not authenticate, else null
     */
    public record Detected(String content, PeerStamp stamp, PeerStamp stale, PeerStamp unverified) {
        public boolean local() {
            return stamp == null;
        }

        /** The origin cluster: the stamp's, or {@code self} for a local write. */
        public String origin(String self) {
            return stamp != null ? stamp.origin() : self;
        }
    }

    /** @param authentic whether a stamp was made by a connector of the link for this document here */
    public static Detected detect(BsonDocument document, Predicate<PeerStamp> authentic) {
        String hash = ContentHash.of(document);
        PeerStamp stamp = PeerStamp.read(document);
        if (stamp == null) {
            return new Detected(hash, null, null, null);
        }
        if (!authentic.test(stamp)) {
            return new Detected(hash, null, null, stamp.hash().equals(hash) ? stamp : null);
        }
        return stamp.hash().equals(hash) ? new Detected(hash, stamp, null, null) : new Detected(hash, null, stamp, null);
    }
}
