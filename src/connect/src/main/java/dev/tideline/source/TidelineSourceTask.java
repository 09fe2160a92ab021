package dev.tideline.source;

import com.mongodb.client.MongoClient;
import com.mongodb.event.ConnectionClosedEvent;
import com.mongodb.event.ConnectionCreatedEvent;
import com.mongodb.event.ConnectionPoolListener;
import dev.tideline.TidelineVersion;
import dev.tideline.health.SourceTaskMetrics;
import dev.tideline.health.TaskIdentity;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.sign.RecordSignature;
import dev.tideline.sign.RecordSigningSettings;
import dev.tideline.source.config.HealthStateSettings;
import dev.tideline.source.config.SourceConfig;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves captured changes into Kafka: the task's capture ({@link TaskCapture}: one change stream per
 * database, a bounded copy pool) fills a bounded queue, {@code poll()} drains it. Planning, offsets and
 * error decisions live in the classes it wires.
 */
public class TidelineSourceTask extends SourceTask {
    private static final int QUEUED_BATCHES = 4;
    private static final Logger log = LoggerFactory.getLogger(TidelineSourceTask.class);
    private static final long POLL_WAIT_MS = 500;
    /**
     * A stop waits at most these two (3 s) in all: Connect gives up on a task whose stop takes longer
     * than {@code task.shutdown.graceful.timeout.ms} (5 s by default). A thread still blocked on a
     * silent socket then ends at the client's read timeout; it has nothing left to hand over.
     */
    private static final long STOP_WAIT_MS = 1_500;
    private static final long CLOSE_WAIT_MS = 1_500;

    private volatile Running running; // read on the producer's thread too (commitRecord)

    /** Everything a started task holds; exists only once start() succeeded. */
    /** @param signature signs each record handed over (record.signing.key); empty: records are not signed */
    private record Running(MongoClient client, TaskCapture capture, RecordQueue queue, int maxRecords, SourceTaskMetrics metrics,
                           Optional<RecordSignature> signature, InFlightRecords inFlight) {
    }

    /** Counts the connections the task's client holds open (JMX MongoConnections). */
    private static final class OpenConnections implements ConnectionPoolListener {
        private final AtomicInteger open = new AtomicInteger();

        @Override
        public void connectionCreated(ConnectionCreatedEvent event) {
            open.incrementAndGet();
        }

        @Override
        public void connectionClosed(ConnectionClosedEvent event) {
            open.decrementAndGet();
        }
    }

    @Override
    public String version() {
        return TidelineVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SourceConfig config = new SourceConfig(props);
        TaskOwnership ownership = TaskOwnership.of(props);
        TaskIdentity identity = TaskIdentity.of(props);
        OpenConnections connections = new OpenConnections();
        // a change stream's getMore legitimately waits up to its await time before answering
        MongoClient client = MongoClientFactory.create(config.connection().uri().value(), "tideline-source", config.connection().connectTimeoutMs(),
                MongoClientFactory.DEFAULT_READ_TIMEOUT_MS + config.capture().maxAwaitMs(), connections);
        SourceTaskMetrics metrics = new SourceTaskMetrics(identity); // JMX; closed with the task
        TaskCapture capture = null;
        try {
            String producer = UUID.randomUUID().toString();
            // Enough read-ahead for the readers to work while Connect sends; every batch held here is heap
            // (about 2 MB per 1,000 changes of 1 KB), on top of what the producer buffers.
            RecordQueue queue = new RecordQueue(QUEUED_BATCHES);
            if (config.healthState().enabled()) {
                metrics.mirrorTo(client.getDatabase(config.healthState().database())
                        .getCollection(HealthStateSettings.STATE_COLLECTION, BsonDocument.class), config.healthState().intervalMs());
            }
            capture = new TaskCapture(config, client, ownership, context.offsetStorageReader(), queue, metrics, producer,
                    new TaskThreads(identity.connector() + "-" + identity.task()), connections.open::get, identity.connector());
            capture.start();
            running = new Running(client, capture, queue, config.capture().batchSize() * 2, metrics,
                    RecordSigningSettings.signature(config), new InFlightRecords(config.capture().recordsInFlightMax()));
            log.info("Source task {} started: collections whose namespace hashes to {} of {}, producer {}", identity,
                    ownership.index(), ownership.count(), producer);
        } catch (RuntimeException e) {
            if (capture != null) {
                capture.close();
            }
            metrics.close();
            client.close();
            throw e;
        }
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        if (!running.inFlight().awaitRoom(POLL_WAIT_MS)) {
            return null; // records.in.flight.max unacknowledged: Connect polls again
        }
        List<SourceRecord> records = running.queue().poll(POLL_WAIT_MS, running.maxRecords());
        if (records != null) {
            running.inFlight().handedOver(records.size());
            // here, where every record passes once, after the readers made it whole (headers included)
            running.signature().ifPresent(s -> records.forEach(s::sign));
        }
        return records;
    }

    /** Called by Connect once per record a poll returned (acknowledged, dropped or failed), on the producer's thread. */
    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        Running r = running;
        if (r != null) {
            r.inFlight().acknowledged();
        }
    }

    @Override
    public void stop() {
        Running r = running;
        if (r == null) {
            return; // start() failed and closed what it opened
        }
        r.capture().close();
        r.metrics().close(); // before the client: writes the final state document, if mirrored
        // close the client even if a reader is stuck on a dead socket: closing unblocks it; bounded, since
        // the driver's goodbye to a black-holed server would hold the stop
        if (!MongoClientFactory.closeWithin(r.client(), CLOSE_WAIT_MS)) {
            log.warn("The source did not answer the client's goodbye within {} ms; it is abandoned", CLOSE_WAIT_MS);
        }
        try {
            if (!r.capture().awaitStop(STOP_WAIT_MS)) {
                log.warn("Some capture threads did not end within {} ms of stop (blocked on the network): they end at "
                        + "the client's read timeout", STOP_WAIT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.info("Source task stopped");
    }
}
