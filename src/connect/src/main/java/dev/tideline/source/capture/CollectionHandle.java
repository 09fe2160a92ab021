package dev.tideline.source.capture;

import dev.tideline.event.Namespace;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonTimestamp;

/**
 * One captured collection as its readers see it (the database's change stream, the copy, the scan, the
 * repair): a reader gets it when the collection joins, hands what it read to it, and tells it what
 * happened to the reading; what follows (copy again, park, the lost-history policy) is the collection's
 * own decision. Each collection is read by one reader at a time.
 */
public interface CollectionHandle {
    Namespace ns();

    /** Builds the records of one item into {@code out}; nothing is handed over yet. */
    void append(Captured item, List<SourceRecord> out);

    /** The records of {@code items} were handed over: the collection stands after the last one. */
    void published(List<Captured> items);

    /** The ONE position of the collection: the offset its last handed-over record carried; null before the first. */
    SourceOffset position();

    /** The history of {@code position} is gone; the reader no longer reads the collection. */
    void historyLost(StreamPosition position, boolean afterCopy, RuntimeException cause);

    /**
     * The collection's documents were replaced without events (a rename onto it) at {@code replacedAt}; the reader
     * let it go. Its copy must start after that event, so that reading the event again later is not taken for a new one.
     */
    void recopy(String reason, BsonTimestamp replacedAt);

    /** The reader cannot read the collection on (its other collections go on): capture of it stops. */
    void park(String reason);
}
