package dev.tideline.event;


/**
 * A record that cannot be read as a change: a per-record problem (DLQ material), never a reason to
 * stop the task by itself. The message says what is wrong with it.
 */
public class MalformedRecordException extends RuntimeException {
    public MalformedRecordException(String message) {
        super(message);
    }

    public MalformedRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
