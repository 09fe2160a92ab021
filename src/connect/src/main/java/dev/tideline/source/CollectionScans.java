package dev.tideline.source;

import dev.tideline.log.LogText;
import dev.tideline.retry.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.StartPlanner.Phase;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionReader;
import dev.tideline.source.capture.SourceOffset;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.errors.ConnectException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task's date scans (mode=scan, or auto without change streams) on a few shared threads: each
 * collection reads a batch, hands it over, and comes back at once while it finds something, else
 * after {@code scan.interval.ms}. So a task holds {@code backfill.max.concurrent} scan threads,
 * whatever the number of collections.
 */
final class CollectionScans implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CollectionScans.class);

    private final ScanReaders readers;
    private final Publisher publisher;
    private final CollectionCopies.Owner owner;
    private final long intervalMs;
    private final ScheduledThreadPoolExecutor pool;
    private volatile boolean stopped;

    CollectionScans(ScanReaders readers, Publisher publisher, TaskThreads threads, int size, long intervalMs, CollectionCopies.Owner owner) {
        this.readers = readers;
        this.publisher = publisher;
        this.owner = owner;
        this.intervalMs = intervalMs;
        this.pool = new ScheduledThreadPoolExecutor(size, threads.factory("scan"));
    }

    /** @param from the stored SCAN position, or null to start from the initial sync */
    void submit(CollectionCapture c, SourceOffset from) {
        c.scanStarted();
        pool.execute(new Scan(c, from));
    }

    private final class Scan implements Runnable {
        private final CollectionCapture c;
        private final Backoff backoff = new Backoff(1_000, 30_000);
        private SourceOffset from;
        private CollectionReader reader;

        Scan(CollectionCapture c, SourceOffset from) {
            this.c = c;
            this.from = from;
        }

        @Override
        public void run() {
            if (stopped) {
                close();
                return;
            }
            try {
                if (reader == null) {
                    reader = readers.open(c.ns(), c.filter(), from);
                    c.metrics().opened(Phase.SCAN, null);
                }
                List<Captured> batch = reader.next();
                publisher.publish(c, batch);
                backoff.reset();
                if (!batch.isEmpty()) {
                    from = batch.get(batch.size() - 1).offset();
                    pool.execute(this);
                } else {
                    pool.schedule(this, intervalMs, TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
            } catch (RuntimeException e) {
                close();
                if (stopped) {
                    return;
                }
                ErrorClass kind = MongoErrors.classify(e);
                c.metrics().failed(kind, e);
                if (kind == ErrorClass.RETRIABLE || kind == ErrorClass.HISTORY_LOST) {
                    long delay = backoff.next();
                    log.warn("Scan of {} interrupted by a transient error (attempt {}), resuming in {} ms: {}", LogText.escape(c.ns()),
                            backoff.attempts(), delay, LogText.message(e.toString()));
                    pool.schedule(this, delay, TimeUnit.MILLISECONDS);
                } else if (kind == ErrorClass.AUTH) {
                    owner.fail(new ConnectException("Scan of " + c.ns() + " failed: authentication or authorization refused by the "
                            + "source (" + e.getMessage() + "). Check the user and password in mongodb.uri and that the user may "
                            + "read the collection and its delete-marker collection (find).", e));
                } else {
                    owner.park(c, "its scan failed: " + e);
                }
            }
        }

        private void close() {
            if (reader != null) {
                try {
                    reader.close();
                } catch (RuntimeException e) {
                    log.debug("Closing the scan of {} failed: {}", LogText.escape(c.ns()), LogText.message(e.toString()));
                }
                reader = null;
            }
        }
    }

    @Override
    public void close() {
        stopped = true;
        pool.shutdownNow();
    }
}
