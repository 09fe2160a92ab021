package dev.tideline.source.scan;

import dev.tideline.mongo.BsonOrder;
import java.util.HashMap;
import java.util.Map;
import org.bson.BsonValue;

/**
 * What this task run already emitted inside the lookback window: {@code _id -> key value}.
 *
 * <p>Each pass re-reads the window behind the cursor to catch late writes; without this, every
 * document of the window would be sent again on every pass, and a busy collection polled each
 * second with a one-minute lookback would repeat each change about sixty times. A re-read document
 * whose key has not changed since it was emitted is the same version: skip it. A document that is
 * new, or whose key moved, is a change: emit it.
 *
 * <p>Memory is bounded by the window: {@link #forgetBefore} drops entries whose key fell out of it,
 * since documents there are never re-read. After a restart the memory is empty, so the first pass
 * re-emits its window once (at-least-once; sinks apply copies idempotently).
 */
final class LookbackMemory {
    private final Map<BsonValue, BsonValue> keyById = new HashMap<>();

    /** True when {@code id} was emitted with exactly this key value (the same version). */
    boolean alreadyEmitted(BsonValue id, BsonValue keyValue) {
        BsonValue seen = keyById.get(id);
        return seen != null && BsonOrder.compare(seen, keyValue) == 0;
    }

    void remember(BsonValue id, BsonValue keyValue) {
        keyById.put(id, keyValue);
    }

    /** Forgets entries whose key is before the window's start: they will not be re-read. */
    void forgetBefore(BsonValue windowStart) {
        keyById.values().removeIf(key -> BsonOrder.compare(key, windowStart) < 0);
    }

    int size() {
        return keyById.size();
    }
}
