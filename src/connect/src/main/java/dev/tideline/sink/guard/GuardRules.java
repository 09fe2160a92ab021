package dev.tideline.sink.guard;

import dev.tideline.sink.plan.VersionOrder;
import java.util.Optional;
import org.bson.BsonValue;

/** The stale-write guard's decision for one change, given what the sidecar holds. Pure. */
public final class GuardRules {
    public enum Decision {
        APPLY,
        /** strictly older than the version already applied: the destination holds a newer state */
        SKIP_STALE,
        /** a delete with no version (a Kafka tombstone) facing a versioned live document: it cannot prove it is newer */
        SKIP_UNPROVEN_DELETE
    }

    private GuardRules() {
    }

    /**
     * @param version  the change's version, or null when it carries none
     * @param isDelete whether the change is a delete
     * @param stored   what the sidecar holds for the document, if anything
     */
    public static Decision decide(BsonValue version, boolean isDelete, Optional<StoredVersion> stored) {
        return decide(version, null, isDelete, stored);
    }

    /**
     * @param txnOpIndex the change's index in its transaction (compared after the version when the stored one has
     *                   one too), or null
     */
    public static Decision decide(BsonValue version, Long txnOpIndex, boolean isDelete, Optional<StoredVersion> stored) {
        if (stored.isEmpty()) {
            return Decision.APPLY;
        }
        if (version == null) {
            // Plain documents bypass the guard. A bare tombstone usually follows the versioned
            // delete it mirrors (already applied: the document is gone); if the sidecar instead
            // holds a live versioned document, that document was re-inserted after the delete
            // this tombstone stands for, and removing it would be the very bug the guard prevents.
            return isDelete && !stored.get().deleted() ? Decision.SKIP_UNPROVEN_DELETE : Decision.APPLY;
        }
        Optional<Integer> cmp = VersionOrder.compare(version, txnOpIndex, stored.get().version(), stored.get().txnOpIndex());
        // Equal applies again: a replay of the same record must land (idempotent, and it repairs a
        // crash between the sidecar write and the document write). Incomparable kinds apply. Within one
        // cluster time, a change earlier in its transaction than the one applied is stale (a re-delivery
        // from the middle of the transaction); without an index on both sides, arrival order decides.
        return cmp.isPresent() && cmp.get() < 0 ? Decision.SKIP_STALE : Decision.APPLY;
    }
}
