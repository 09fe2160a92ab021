package dev.tideline.source;

import java.util.List;

/**
 * Reads one collection in one phase (backfill, stream or scan). Runs on the collection's capture
 * thread; never shared between threads.
 *
 * <p>Failures are thrown as they come (driver exceptions): the capture loop classifies them in one
 * place ({@code MongoErrors}) and decides to reopen, to apply the lost-history policy or to fail.
 */
public interface CollectionReader extends AutoCloseable {
    /**
     * The next batch, in order. Empty when nothing new arrived; then the reader has already waited
     * (server-side await or its own back-off), so callers may loop without spinning.
     */
    List<Captured> next() throws InterruptedException;

    /** True when this phase has nothing more to read and the next phase should start (a finished backfill). */
    default boolean finished() {
        return false;
    }

    @Override
    void close();
}
