package dev.tideline.event;

/**
 * A record that reads fine but that the sink refuses to apply because it could harm the destination
 * (an id that would act as a query operator, a namespace the sink never writes, a value too deep or too
 * large to decode safely). A per-record problem like a malformed record: dead letter queue with the
 * reason, or the task stops with it under {@code errors.tolerance=none}; never applied.
 */
public class RefusedRecordException extends MalformedRecordException {
    public RefusedRecordException(String message) {
        super(message);
    }
}
