package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.mongo.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.config.SelectionSettings;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-lists the source's collections now and then, and asks Connect to reconfigure the tasks when the
 * set changed: a collection created later is captured without a restart. Connect's distributed mode
 * then spreads the new task configs; we schedule nothing ourselves.
 *
 * <p>An unreachable source is not a reason to fail the connector: until the first listing succeeds the
 * set is unknown, the listing is retried with back-off (1 s doubling up to the discovery interval), and
 * the first success asks for task configs. Only a refusal that waiting cannot cure (credentials) fails.
 */
final class CollectionMonitor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CollectionMonitor.class);

    private final MongoClient client;
    private final SelectionSettings selection;
    private final String hosts;
    private final Runnable onChange;
    private final ScheduledExecutorService timer;
    private final Backoff unknownBackoff;
    private volatile List<Namespace> current; // null while no listing has succeeded
    private volatile String lastFailure = "not listed yet";

    CollectionMonitor(MongoClient client, SelectionSettings selection, String hosts, Runnable onChange) {
        this.client = client;
        this.selection = selection;
        this.hosts = hosts;
        this.onChange = onChange;
        this.unknownBackoff = new Backoff(1_000, selection.discoveryIntervalMs());
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tideline-collection-monitor");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Lists once now, then keeps checking in the background.
     *
     * @throws RuntimeException the driver's error when the source refused the credentials: retrying cannot cure it
     */
    void start() {
        try {
            current = CollectionDiscovery.list(client, selection);
            log.info("Source at {} has {} collection(s) to capture: {}", hosts, current.size(), current);
            schedule(selection.discoveryIntervalMs());
        } catch (RuntimeException e) {
            if (MongoErrors.classify(e) != ErrorClass.RETRIABLE) {
                throw e;
            }
            unreachable(e);
        }
    }

    /** The collections to capture; empty while the source has not been reachable since the start. */
    Optional<List<Namespace>> current() {
        return Optional.ofNullable(current);
    }

    /** Why the set is unknown, for messages. */
    String lastFailure() {
        return lastFailure;
    }

    private void check() {
        try {
            List<Namespace> now = CollectionDiscovery.list(client, selection);
            List<Namespace> before = current;
            current = now;
            if (before == null) {
                log.info("Source at {} is reachable after {} attempt(s): {} collection(s) {}; asking for task configs",
                        hosts, unknownBackoff.attempts(), now.size(), now);
                unknownBackoff.reset();
                onChange.run();
            } else if (!now.equals(before)) {
                log.info("Collections changed: {} -> {}; reconfiguring tasks", before, now);
                onChange.run();
            }
            schedule(selection.discoveryIntervalMs());
        } catch (RuntimeException e) {
            if (current == null) {
                unreachable(e);
            } else {
                // the set stays as last seen, tasks keep running (and retry on their own); the next check retries
                log.warn("Listing the source's collections failed ({}): {}", MongoErrors.classify(e), e.toString());
                schedule(selection.discoveryIntervalMs());
            }
        }
    }

    private void unreachable(RuntimeException e) {
        lastFailure = e.getClass().getSimpleName() + ": " + e.getMessage();
        long delay = unknownBackoff.next();
        log.warn("Cannot list the collections of the source at {} (attempt {}, {}): {}. The connector keeps running "
                        + "and retries in {} ms; its tasks start capturing once the source answers. Check that the server is "
                        + "up and reachable from this worker.", hosts, unknownBackoff.attempts(), MongoErrors.classify(e),
                lastFailure, delay);
        schedule(delay);
    }

    private void schedule(long delayMs) {
        if (!timer.isShutdown()) {
            timer.schedule(this::check, delayMs, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
