package dev.tideline.peer.sink;

import dev.tideline.event.RefusedRecordException;

/** A peer record whose stamp or delete MAC is missing or does not verify with the link's key: never applied. */
final class UnauthenticRecordException extends RefusedRecordException {
    private final boolean missing;

    /** @param missing true when the record carries no MAC at all; false when it carries one that does not verify */
    UnauthenticRecordException(String message, boolean missing) {
        super(message);
        this.missing = missing;
    }

    boolean missing() {
        return missing;
    }
}
