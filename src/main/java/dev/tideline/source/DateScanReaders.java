package dev.tideline.source;

import com.mongodb.client.MongoDatabase;
import dev.tideline.event.Namespace;
import dev.tideline.source.config.SourceConfig;
import org.bson.BsonDocument;

/** Opens {@code ScanReader}s with the connector's scan settings. */
final class DateScanReaders implements ScanReaders {
    private final SourceConfig config;

    DateScanReaders(SourceConfig config) {
        this.config = config;
    }

    @Override
    public CollectionReader open(Namespace ns, MongoDatabase db, BsonDocument filter, SourceOffset from) {
        throw new UnsupportedOperationException("scan reader not wired yet");
    }
}
