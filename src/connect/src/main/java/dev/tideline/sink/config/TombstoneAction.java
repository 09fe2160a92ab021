package dev.tideline.sink.config;

/** What a Kafka tombstone (a record with a null value) does. */
public enum TombstoneAction {
    /** delete the document whose {@code _id} is the record key (default) */
    DELETE,
    /** skip the record */
    IGNORE;
}
