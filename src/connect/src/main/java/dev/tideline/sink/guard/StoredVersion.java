package dev.tideline.sink.guard;

import java.util.Objects;
import org.bson.BsonValue;

/** What the sidecar remembers of a destination document: the version last applied, and whether that was a delete. */
public record StoredVersion(BsonValue version, boolean deleted) {
    public StoredVersion {
        Objects.requireNonNull(version, "version");
    }
}
