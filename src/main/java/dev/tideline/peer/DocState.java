package dev.tideline.peer;

/** What a cluster holds for one document, as far as last-writer-wins is concerned. */
public sealed interface DocState {
    /**
     * @param content hash of the content (stamp aside)
     * @param version the stamp's version when the stamp is valid; null for a local write not yet
     *                stamped (its version is known only once this cluster's own record of it arrives)
     * @param base    the version that write was based on, when known
     */
    record Present(String content, Version version, Version base) implements DocState {
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

    static DocState of(OriginDetector.Detected detected) {
        return detected.stamp() == null ? new Present(detected.content(), null, null)
                : new Present(detected.content(), detected.stamp().version(), detected.stamp().base());
    }
}
