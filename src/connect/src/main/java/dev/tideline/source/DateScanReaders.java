package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.source.capture.CollectionReader;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.config.SourceConfig;
import dev.tideline.source.scan.ScanPlan;
import dev.tideline.source.scan.ScanReader;
import dev.tideline.source.scan.ScanStart;
import java.time.Clock;
import org.bson.BsonDocument;

/** Opens {@link ScanReader}s with the connector's scan settings; a collection without offset starts from its initial sync. */
final class DateScanReaders implements ScanReaders {
    private final SourceConfig config;
    private final MongoClient client;
    private final Clock clock = Clock.systemUTC();

    DateScanReaders(SourceConfig config, MongoClient client) {
        this.config = config;
        this.client = client;
    }

    @Override
    public CollectionReader open(Namespace ns, BsonDocument filter, SourceOffset from) {
        ScanPlan plan = ScanPlan.of(config.scan(), ns, config.capture().batchSize());
        SourceOffset start = from != null ? from : ScanStart.offset(client, ns, plan, config.capture().initialSync(), clock.instant());
        return new ScanReader(client, ns, plan, filter, start, clock);
    }
}
