package dev.tideline.sink.write;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A record this batch could not apply, and why (malformed, or refused by the server).
 *
 * @param uniqueConflict the server refused the write because of a unique index (duplicate key): that can
 *                       clear up once a change on another partition lands, so the sink retries such a
 *                       record for a while before it reports it (see {@code dev.tideline.sink.ConflictRetries})
 */
public record RecordFailure(SinkRecord record, String reason, Throwable cause, boolean uniqueConflict) {
    /** A failure that retrying cannot cure. */
    public RecordFailure(SinkRecord record, String reason, Throwable cause) {
        this(record, reason, cause, false);
    }

    /** The message operators and DLQ headers see: where the record is, then why it failed. */
    public String message() {
        return "topic " + record.topic() + ", partition " + record.kafkaPartition() + ", offset "
                + record.kafkaOffset() + ": " + reason;
    }

    public ConnectException toException() {
        return new ConnectException(message(), cause);
    }

    /** The same failure with more said about it (e.g. how long it was retried). */
    public RecordFailure withReason(String newReason) {
        return new RecordFailure(record, newReason, cause, uniqueConflict);
    }
}
