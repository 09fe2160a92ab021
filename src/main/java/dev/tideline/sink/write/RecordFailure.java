package dev.tideline.sink.write;

import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;

/** A record this batch could not apply, and why (malformed, or refused by the server). */
public record RecordFailure(SinkRecord record, String reason, Throwable cause) {
    /** The message operators and DLQ headers see: where the record is, then why it failed. */
    public String message() {
        return "topic " + record.topic() + ", partition " + record.kafkaPartition() + ", offset "
                + record.kafkaOffset() + ": " + reason;
    }

    public ConnectException toException() {
        return new ConnectException(message(), cause);
    }
}
