package dev.tideline.peer;

import org.bson.BsonDocument;

/**
 * Decides where a document's content was written, from the document alone: a document that carries
 * a stamp whose hash equals the hash of its content is exactly what a peer sink wrote, so its origin
 * is the stamp's origin; anything else (no stamp, or a stamp an application's later write left
 * stale) was written locally.
 */
public final class OriginDetector {
    private OriginDetector() {
    }

    /**
     * @param content hash of the document without its stamp
     * @param stamp   the document's stamp when valid (its hash matches), else null: a local write
     * @param stale   the document's stamp when it no longer matches (the version the local write was
     *                based on), else null
     */
    public record Detected(String content, PeerStamp stamp, PeerStamp stale) {
        public boolean local() {
            return stamp == null;
        }

        /** The origin cluster: the stamp's, or {@code self} for a local write. */
        public String origin(String self) {
            return stamp != null ? stamp.origin() : self;
        }
    }

    public static Detected detect(BsonDocument document) {
        String hash = ContentHash.of(document);
        PeerStamp stamp = PeerStamp.read(document);
        if (stamp != null && stamp.hash().equals(hash)) {
            return new Detected(hash, stamp, null);
        }
        return new Detected(hash, null, stamp);
    }
}
