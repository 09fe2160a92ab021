package dev.tideline.peer;

/** What a cluster holds for one document, as far as last-writer-wins is concerned. */
public sealed interface DocState {
    /**
     * @param content   hash of the content (stamp aside)
     * @param version   the stamp's version when the stamp is valid; null for a local write not yet
     *                  stamped (its version is known only once this cluster's own record of it arrives)
     * @param base      the version that write was based on, when known
     * @param tombstone the tombstone still kept for this document, null when none: a document written
     *                  again by an application after a delete (the sink drops it when it writes the document)
     */
    record Present(String content, Version version, Version base, Version tombstone) implements DocState {
        public Present(String content, Version version, Version base) {
            this(content, version, base, null);
        }

        /** The same state without the tombstone: what matters once the document is written. */
        Present withoutTombstone() {
            return tombstone == null ? this : new Present(content, version, base, null);
        }
    }

    /**
     * @param tombstone         the version of the delete that removed it, when a tombstone is kept; else null
     * @param deletedUnrecorded the sink last knew the document present and no delete it knows of removed it:
     *                          a local delete whose own record has not been processed yet
     * @param lastPresent       when {@code deletedUnrecorded}: the version the sink last knew present (null when
     *                          unknown, e.g. a local write not stamped yet); the unrecorded delete came after it
     */
    record Absent(Version tombstone, boolean deletedUnrecorded, Version lastPresent) implements DocState {
        public Absent(Version tombstone) {
            this(tombstone, false, null);
        }

        public Absent(Version tombstone, boolean deletedUnrecorded) {
            this(tombstone, deletedUnrecorded, null);
        }
    }

    /** A document as read: its detected stamp (valid or not) and the tombstone still kept for it. */
    static DocState of(OriginDetector.Detected detected, Version tombstone) {
        return detected.stamp() == null ? new Present(detected.content(), null, null, tombstone)
                : new Present(detected.content(), detected.stamp().version(), detected.stamp().base(), tombstone);
    }

    static DocState of(OriginDetector.Detected detected) {
        return of(detected, null);
    }
}
