package dev.tideline.mongo;

/** What to do about a failure. Decided in one place: {@link MongoErrors#classify}. */
public enum ErrorClass {
    /** Transient (network, failover, shutdown, write-concern timeout): retry with backoff, lose nothing. */
    RETRIABLE,
    /** The change stream's resume position is gone (oplog rolled over, stream invalidated): apply the lost-history policy. */
    HISTORY_LOST,
    /** The server cannot serve a change stream at all (a standalone mongod: it has no oplog). */
    STREAM_UNSUPPORTED,
    /** The server refused this one record (duplicate key, too large, validation): isolate it (DLQ), keep the rest. */
    PER_RECORD,
    /** Authentication or authorization failed: nothing works until the credentials or roles are fixed. */
    AUTH,
    /** Anything else: stop the task with the server's message. */
    FATAL
}
