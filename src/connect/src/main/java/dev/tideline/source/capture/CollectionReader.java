package dev.tideline.source.capture;

import java.util.List;

/**
 * Reads one collection in one phase (a backfill or a scan; change streams are read per database by
 * {@code DatabaseStream}). Used by one thread at a time.
 *
 * <p>Failures are thrown as they come (driver exceptions): the capture loop classifies them in one
 * place ({@code MongoErrors}) and decides to reopen, to apply the lost-history policy or to fail.
 */
public interface CollectionReader extends AutoCloseable {
    /**
     * The next batch, in order. Empty when nothing new arrived now: the caller decides when to ask again
     * (a scan after its interval).
     */
    List<Captured> next() throws InterruptedException;

    /** True when this phase has nothing more to read and the next phase should start (a finished backfill). */
    default boolean finished() {
        return false;
    }

    @Override
    void close();
}
