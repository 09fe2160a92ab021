package dev.tideline.health;

import com.mongodb.client.MongoCollection;
import dev.tideline.log.LogText;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites a task's {@link StateDocument} every interval on its own daemon thread, and once more on
 * close with health {@code stopped}. Best effort: a refused or failed write is logged (once per
 * kind of failure in a row) and retried at the next tick; it never touches the capture.
 */
final class StateMirror implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StateMirror.class);
    private static final long FINAL_WRITE_WAIT_MS = 2_000;

    private final TaskIdentity task;
    private final Supplier<Health> health;
    private final Supplier<List<SourceCollectionMetrics>> collections;
    private final String host = hostName();
    private final long pid = ProcessHandle.current().pid();
    private final ScheduledExecutorService timer;
    private final ScheduledFuture<?> ticks;
    private final StatusDocumentWriter writer;

    StateMirror(MongoCollection<BsonDocument> collection, TaskIdentity task, Supplier<Health> health,
                Supplier<List<SourceCollectionMetrics>> collections, long intervalMs) {
        this.writer = new StatusDocumentWriter(collection, "the state document of " + task + " (health.state.database)");
        this.task = task;
        this.health = health;
        this.collections = collections;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tideline-state-" + task);
            t.setDaemon(true);
            return t;
        });
        this.ticks = timer.scheduleWithFixedDelay(() -> write(health.get()), 0, intervalMs, TimeUnit.MILLISECONDS);
    }

    private void write(Health h) {
        writer.write(StateDocument.of(task, h, collections.get(), host, pid, Instant.now()));
    }

    /**
     * Writes the final {@code stopped} state, waiting at most {@link #FINAL_WRITE_WAIT_MS}: a stop must
     * not hang on a dead server (closing the client afterwards unblocks a write still in flight).
     */
    @Override
    public void close() {
        ticks.cancel(false);
        Future<?> last = timer.submit(() -> write(null));
        try {
            last.get(FINAL_WRITE_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.info("The final state document of {} was not written within {} ms; stopping anyway", LogText.escape(task),
                    FINAL_WRITE_WAIT_MS);
        } catch (ExecutionException e) {
            log.warn("The final state document of {} could not be written: {}", LogText.escape(task),
                    LogText.message(e.getCause().toString()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            timer.shutdownNow();
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown";
        }
    }
}
