package dev.tideline.sink.config;

/** How an insert, update, replace or read lands on the destination. */
public enum WriteMode {
    /** replace the document by {@code _id}, inserting it when absent (default) */
    UPSERT,
    /** replace the document by {@code _id} only when it already exists */
    UPDATE;
}
