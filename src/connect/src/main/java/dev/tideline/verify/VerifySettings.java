package dev.tideline.verify;

import dev.tideline.mongo.NameFilter;
import java.nio.file.Path;
import java.util.List;

/**
 * Everything a verify run needs. The connection strings may carry passwords: nothing prints them
 * (reports name the hosts only).
 *
 * @param peers               both sides are peer clusters: the peer stamp is ignored and collections of
 *                            either side are compared
 * @param databases           the source databases to compare; empty means every database but admin, config and local
 * @param collections         which {@code db.collection} names to compare
 * @param destinationDatabase the destination database of every source database; null keeps the name
 * @param rangeSize           source documents per range (the unit hashed, reported and re-copied)
 * @param batchSize           documents per round trip when documents are read
 * @param rechecks            re-check rounds of ids that differ; 0 reports the first look as it is
 * @param recheckDelayMs      how long after a look its re-check waits (longer than the pipeline's lag)
 * @param spoolDirectory      where candidates wait for their re-checks
 */
public record VerifySettings(String sourceUri, String destinationUri, boolean peers, List<String> databases,
                             NameFilter collections, String destinationDatabase, DocumentComparison comparison,
                             Hashing hashing, int rangeSize, int batchSize, int rechecks, long recheckDelayMs,
                             int connectTimeoutMs, Path spoolDirectory) {
    public static final int DEFAULT_RANGE_SIZE = 10_000;
    public static final int DEFAULT_BATCH_SIZE = 1_000;
    public static final int DEFAULT_RECHECKS = 3;
    public static final long DEFAULT_RECHECK_DELAY_MS = 5_000;
    public static final int DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

    public VerifySettings {
        databases = List.copyOf(databases);
        if (rangeSize < 1 || batchSize < 1 || rechecks < 0 || recheckDelayMs < 0 || connectTimeoutMs < 1) {
            throw new IllegalArgumentException("range size, batch size and timeout must be positive, rechecks and delay not negative");
        }
        if (comparison.ignoreFieldOrder() && hashing == Hashing.SERVER) {
            throw new IllegalArgumentException("server hashing compares fields in order: ignoring field order needs client hashing");
        }
    }

    /** Whether server hashing may be tried at all (it compares fields in their order). */
    public boolean mayHashOnServers() {
        return hashing != Hashing.CLIENT && !comparison.ignoreFieldOrder();
    }
}
