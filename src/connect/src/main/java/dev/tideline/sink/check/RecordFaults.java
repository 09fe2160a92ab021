package dev.tideline.sink.check;

import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.RefusedRecordException;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;

/**
 * The reason a record is refused for, when reading, changing or encoding it in memory threw
 * (classified by {@link MongoErrors#classifyRecordProcessing}): the record goes to the dead letter
 * queue with it and the rest of its batch is applied. What is not that record's doing is thrown on.
 */
public final class RecordFaults {
    private RecordFaults() {
    }

    /**
     * @param during what the sink was doing, e.g. "while applying its update", for the reason
     * @return the record's refusal reason
     * @throws RuntimeException or Error: {@code t} itself, when it is not about this one record
     */
    public static String reason(String during, Throwable t) {
        if (MongoErrors.classifyRecordProcessing(t) != ErrorClass.PER_RECORD) {
            if (t instanceof Error e) {
                throw e;
            }
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
        if (t instanceof RefusedRecordException) {
            return t.getMessage();
        }
        if (t instanceof MalformedRecordException) {
            return "malformed record: " + t.getMessage();
        }
        if (t instanceof StackOverflowError) {
            return "refused: " + during + ", the sink overflowed its stack (StackOverflowError): the record nests too "
                    + "deeply to be processed";
        }
        if (t instanceof OutOfMemoryError) {
            return "refused: " + during + ", the worker ran out of memory (OutOfMemoryError: " + t.getMessage()
                    + "): the record asks for more than the heap can hold";
        }
        return "refused: " + during + ", the sink failed with " + t.getClass().getName() + ": " + t.getMessage();
    }
}
