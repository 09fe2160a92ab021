package dev.tideline.source;

import dev.tideline.event.Namespace;
import dev.tideline.source.capture.CollectionReader;
import dev.tideline.source.capture.SourceOffset;
import org.bson.BsonDocument;

/** Opens the date-scan reader of a collection (scan mode, or auto mode without change streams). */
interface ScanReaders {
    /** @param from the stored SCAN position, or null to start from the initial sync */
    CollectionReader open(Namespace ns, BsonDocument filter, SourceOffset from);
}
