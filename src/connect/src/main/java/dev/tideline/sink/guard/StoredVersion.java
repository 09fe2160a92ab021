package dev.tideline.sink.guard;

import java.util.Objects;
import org.bson.BsonValue;

/**
 * What the sidecar remembers of a destination document: the version last applied, whether that was a delete, and
 * the change's index in its transaction when it carried one (the tie-breaker between changes of one cluster time),
 * else null.
 */
public record StoredVersion(BsonValue version, boolean deleted, Long txnOpIndex) {
    public StoredVersion {
        Objects.requireNonNull(version, "version");
    }

    /** A version without a tie-breaker. */
    public StoredVersion(BsonValue version, boolean deleted) {
        this(version, deleted, null);
    }
}
