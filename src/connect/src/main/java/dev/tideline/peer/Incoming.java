package dev.tideline.peer;

import java.util.Objects;
import org.bson.BsonTimestamp;

/**
 * One replicated change as the peer sink sees it.
 *
 * @param origin      the cluster where the write was first made
 * @param fromCluster the cluster whose source emitted this record (its own writes and the peer writes
 *                    it applied); equals {@code origin} for a first-hand record
 * @param version     the write's version (origin time, origin)
 * @param base        the version the write was based on, when known
 * @param content     the content hash of the written document; null for a delete
 * @param sourceTime  the cluster time of the change event on the cluster whose source emitted the record
 *                    (orders this cluster's own records by when the writes happened here); null when the
 *                    record has none (a copy)
 */
public record Incoming(String origin, String fromCluster, Version version, Version base, String content,
                       BsonTimestamp sourceTime) {
    public Incoming {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(fromCluster, "fromCluster");
        Objects.requireNonNull(version, "version");
    }

    public Incoming(String origin, String fromCluster, Version version, Version base, String content) {
        this(origin, fromCluster, version, base, content, null);
    }

    public boolean isDelete() {
        return content == null;
    }
}
