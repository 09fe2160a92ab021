package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.config.SelectionSettings;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-lists the source's collections now and then, and asks Connect to reconfigure the tasks when the
 * set changed: a collection created later is captured without a restart. Connect's distributed mode
 * then spreads the new task configs; we schedule nothing ourselves.
 */
final class CollectionMonitor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CollectionMonitor.class);

    private final MongoClient client;
    private final SelectionSettings selection;
    private final Runnable onChange;
    private final ScheduledExecutorService timer;
    private volatile List<Namespace> current;

    /** @param initial the collections listed at start; null when the source did not answer then */
    CollectionMonitor(MongoClient client, SelectionSettings selection, List<Namespace> initial, Runnable onChange) {
        this.client = client;
        this.selection = selection;
        this.current = initial;
        this.onChange = onChange;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tideline-collection-monitor");
            t.setDaemon(true);
            return t;
        });
        long every = selection.discoveryIntervalMs();
        timer.scheduleWithFixedDelay(this::check, every, every, TimeUnit.MILLISECONDS);
    }

    /** The collections last listed; null while the source has not answered a listing yet. */
    List<Namespace> current() {
        return current;
    }

    /**
     * Lists now. For {@code taskConfigs()} while no listing has succeeded: a failure propagates, and
     * Connect retries the reconfiguration with back-off, the tasks it already runs untouched.
     */
    List<Namespace> listNow() {
        List<Namespace> now = CollectionDiscovery.list(client, selection);
        current = now;
        return now;
    }

    private void check() {
        try {
            List<Namespace> now = CollectionDiscovery.list(client, selection);
            if (!now.equals(current)) {
                log.info("Collections changed: {} -> {}; reconfiguring tasks", current, now);
                current = now;
                onChange.run();
            }
        } catch (RuntimeException e) {
            // the next check retries; tasks keep running meanwhile
            log.warn("Listing the source's collections failed ({}): {}", MongoErrors.classify(e), e.toString());
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
