package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.TidelineVersion;
import dev.tideline.event.Namespace;
import dev.tideline.health.SourceTaskMetrics;
import dev.tideline.health.TaskIdentity;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.source.config.HealthStateSettings;
import dev.tideline.source.config.SourceConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves captured changes into Kafka: one capture thread per owned collection fills a bounded queue,
 * {@code poll()} drains it. Planning, offsets and error decisions live in the classes it wires.
 */
public class TidelineSourceTask extends SourceTask {
    private static final int QUEUED_BATCHES = 4;
    private static final Logger log = LoggerFactory.getLogger(TidelineSourceTask.class);
    private static final long POLL_WAIT_MS = 500;
    /**
     * A stop waits at most these two (3 s) in all: Connect gives up on a task whose stop takes longer
     * than {@code task.shutdown.graceful.timeout.ms} (5 s by default). A capture thread still blocked
     * on a silent socket then ends at the client's read timeout; it has nothing left to hand over.
     */
    private static final long STOP_WAIT_MS = 1_500;
    private static final long CLOSE_WAIT_MS = 1_500;

    private Running running;

    /** Everything a started task holds; exists only once start() succeeded. */
    private record Running(MongoClient client, ExecutorService threads, List<CollectionCapture> captures, RecordQueue queue, int maxRecords,
                           SourceTaskMetrics metrics) {
    }

    @Override
    public String version() {
        return TidelineVersion.get();
    }

    @Override
    public void start(Map<String, String> props) {
        SourceConfig config = new SourceConfig(props);
        List<Namespace> owned = TaskCollections.decode(props.get(TaskCollections.KEY));
        // a change stream's getMore legitimately waits up to its await time before answering
        MongoClient client = MongoClientFactory.create(config.connection().uri(), "tideline-source", config.connection().connectTimeoutMs(),
                MongoClientFactory.DEFAULT_READ_TIMEOUT_MS + config.capture().maxAwaitMs());
        ExecutorService threads = null;
        SourceTaskMetrics metrics = new SourceTaskMetrics(TaskIdentity.of(props)); // JMX; closed with the task
        try {
            Map<Map<String, Object>, Map<String, Object>> stored = storedOffsets(owned);
            String producer = UUID.randomUUID().toString();
            // Enough read-ahead for the capture threads to work while Connect sends; every batch held
            // here is heap (about 2 MB per 1,000 changes of 1 KB), on top of what the producer buffers.
            RecordQueue queue = new RecordQueue(QUEUED_BATCHES);
            StreamSupport streams = new StreamSupport();
            ScanReaders scans = new DateScanReaders(config, client);
            List<CollectionCapture> captures = new ArrayList<>();
            for (Namespace ns : owned) {
                Map<String, Object> offset = stored.get(SourceOffset.partition(ns));
                RecordFactory factory = new RecordFactory(ns, config.topics().namer().topicFor(ns), config.topics().heartbeatTopic(),
                        config.topics().controlTopic(), config.capture().outputFormat(), config.capture().tenantField(),
                        config.capture().deleteTombstone(), producer);
                if (config.peer().clusterId().isPresent()) {
                    factory.withPeerTagging(new PeerOriginTagger(config.peer(), client.getDatabase(ns.db()), ns.coll(), offset));
                }
                captures.add(new CollectionCapture(ns, client.getDatabase(ns.db()), config.capture(), streams, scans, factory, queue,
                        offset == null ? null : SourceOffset.fromMap(offset), new CaptureMetrics(metrics.collection(ns.fullName()))));
            }
            if (config.healthState().enabled()) {
                metrics.mirrorTo(client.getDatabase(config.healthState().database())
                        .getCollection(HealthStateSettings.STATE_COLLECTION, BsonDocument.class), config.healthState().intervalMs());
            }
            threads = Executors.newFixedThreadPool(Math.max(1, captures.size()), r -> {
                Thread t = new Thread(r, "tideline-capture");
                t.setDaemon(true);
                return t;
            });
            for (CollectionCapture c : captures) {
                threads.submit(c);
            }
            running = new Running(client, threads, captures, queue, config.capture().batchSize() * 2, metrics);
            log.info("Source task started: {} collection(s) {}, producer {}", owned.size(), owned, producer);
        } catch (RuntimeException e) {
            if (threads != null) {
                threads.shutdownNow();
            }
            metrics.close();
            client.close();
            throw e;
        }
    }

    private Map<Map<String, Object>, Map<String, Object>> storedOffsets(List<Namespace> owned) {
        List<Map<String, Object>> partitions = new ArrayList<>();
        owned.forEach(ns -> partitions.add(SourceOffset.partition(ns)));
        Map<Map<String, Object>, Map<String, Object>> found = context.offsetStorageReader().offsets(partitions);
        return found == null ? new HashMap<>() : found;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        return running.queue().poll(POLL_WAIT_MS, running.maxRecords());
    }

    @Override
    public void stop() {
        Running r = running;
        if (r == null) {
            return; // start() failed and closed what it opened
        }
        r.captures().forEach(CollectionCapture::stop);
        r.threads().shutdownNow();
        r.metrics().close(); // before the client: writes the final state document, if mirrored
        // close the client even if a capture thread is stuck on a dead socket: closing unblocks it;
        // bounded, since the driver's goodbye to a black-holed server would hold the stop
        if (!MongoClientFactory.closeWithin(r.client(), CLOSE_WAIT_MS)) {
            log.warn("The source did not answer the client's goodbye within {} ms; it is abandoned", CLOSE_WAIT_MS);
        }
        try {
            if (!r.threads().awaitTermination(STOP_WAIT_MS, TimeUnit.MILLISECONDS)) {
                log.warn("Some capture threads did not end within {} ms of stop (blocked on the network): they end at "
                        + "the client's read timeout", STOP_WAIT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.info("Source task stopped");
    }
}
