package dev.tideline.source.capture;

/**
 * What a control record reports ({@link Captured.Control}): something the operator must know and no sink
 * applies. The wire name is the record's {@code type} field, as docs/record-format.md lists it.
 */
public enum ControlType {
    /** The collection was dropped (a change-stream {@code drop} event). */
    DROP("drop"),
    /** The collection was renamed away ({@code rename}). */
    RENAME("rename"),
    /** The database was dropped ({@code dropDatabase}). */
    DROP_DATABASE("dropDatabase"),
    /** The server invalidated the stream ({@code invalidate}). */
    INVALIDATE("invalidate"),
    /** Another collection was renamed onto this one: its documents were replaced without events, it is copied again. */
    RENAMED_INTO("renamed_into"),
    /** The collection's position is no longer in the oplog; its lost-history policy applies. */
    HISTORY_LOST("history_lost"),
    /** Capture of the collection stopped for a reason of its own; the task's other collections go on. */
    PARKED("parked"),
    /** An event too large to send was skipped. */
    EVENT_TOO_LARGE("event_too_large"),
    /** A change without an identifiable document ({@code _id}). */
    UNIDENTIFIED_CHANGE("unidentified_change");

    private final String wireName;

    ControlType(String wireName) {
        this.wireName = wireName;
    }

    /** The record's {@code type} field. */
    public String wireName() {
        return wireName;
    }

    /**
     * The control type of a change-stream DDL event ({@code drop}, {@code rename}, {@code dropDatabase},
     * {@code invalidate}).
     *
     * @throws IllegalArgumentException for another operation type
     */
    public static ControlType ofEvent(String operationType) {
        for (ControlType t : values()) {
            if (t.ordinal() <= INVALIDATE.ordinal() && t.wireName.equals(operationType)) {
                return t;
            }
        }
        throw new IllegalArgumentException("not a DDL event reported as a control record: " + operationType);
    }
}
