package dev.tideline.source;

import com.mongodb.client.MongoDatabase;
import dev.tideline.event.Namespace;
import org.bson.BsonDocument;

/** Opens the date-scan reader of a collection (scan mode, or auto mode without change streams). */
interface ScanReaders {
    CollectionReader open(Namespace ns, MongoDatabase db, BsonDocument filter, SourceOffset from);
}
