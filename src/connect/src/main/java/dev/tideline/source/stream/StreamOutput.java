package dev.tideline.source.stream;

import dev.tideline.event.Namespace;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionHandle;
import java.util.List;

/**
 * Where a change stream ({@link DatabaseStream}) hands over what it read and reports what
 * concerns the whole stream; what concerns one collection goes to that collection's {@link CollectionHandle}.
 * Called on the stream's thread.
 */
public interface StreamOutput {
    /** One item for one collection of the stream. */
    record Delivery(CollectionHandle collection, Captured item) {
    }

    /** A failure building the records of one collection: the stream parks that collection, the others go on. */
    final class CollectionFailure extends RuntimeException {
        private final Namespace collection;

        public CollectionFailure(Namespace collection, RuntimeException cause) {
            super("records of " + collection.fullName() + ": " + cause.getMessage(), cause);
            this.collection = collection;
        }

        public Namespace collection() {
            return collection;
        }
    }

    /** Hands a batch to Kafka, in order, all or nothing. @throws CollectionFailure when one collection's records cannot be built */
    void publish(List<Delivery> batch) throws InterruptedException;

    /** A failure of the whole stream that waiting cannot cure: the task fails with it. */
    void failed(RuntimeException e);

    /** A transient failure; the stream reopens after {@code delayMs}. */
    void retrying(RuntimeException e, long delayMs);

    /** The stream (re)opened: the server answers. */
    void opened(int collections);

    /** New repair signals were read (their {@code _id}s in {@code db}'s signal collection), once the batch was handed over. */
    default void signals(String db, List<org.bson.BsonValue> ids) {
    }
}
