package dev.tideline.peer.sink;

import dev.tideline.health.HealthReason;
import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.log.LogText;

import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.peer.TenantScope;
import dev.tideline.retry.Backoff;
import dev.tideline.health.TaskIdentity;
import dev.tideline.peer.PeerKeySettings;
import dev.tideline.sink.config.PeerSinkSettings;
import dev.tideline.sink.config.SinkConfig;
import dev.tideline.sink.front.ConfiguredSinkTask;
import dev.tideline.sink.front.FailedRecordHandler;
import dev.tideline.sink.front.SinkFrontEnd;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink task in peer mode ({@code peer.cluster.id} set): queues records in {@link PeerQueue} and moves them
 * through {@link PeerApplier}.
 *
 * <p>Every record first passes the sink's own front end ({@link SinkFrontEnd}) and the link's MAC check
 * ({@link PeerRecordReader}). A record that does not (no valid stamp or delete MAC, malformed, refused by
 * {@code database.allow}, {@code record.max.bytes} or {@code record.signing.key}) goes to the dead letter queue with
 * its reason and is counted in the status ({@code degraded}, reason {@code refused-records}): it never holds the link
 * nor its partition's offsets, and never stops the task. A record the destination refuses is held and retried (the
 * task reports {@code stalled}); when the destination is unreachable, every queued record waits and
 * the task reports {@code down}. Offsets are committed only below the lowest queued record of each
 * partition, so a restart re-delivers what was waiting (re-applying is harmless: equal versions are
 * duplicates). Consumption of the peers' partitions pauses while more than {@value #MAX_QUEUED} records wait.
 */
public class PeerSinkTask extends ConfiguredSinkTask {
    private static final Logger log = LoggerFactory.getLogger(PeerSinkTask.class);
    static final int MAX_QUEUED = 20_000;
    /** how soon records still queued (waiting behind a held one) are tried again, with no new batch to bring them */
    private static final long QUEUED_RETRY_MS = 250;

    private MongoClient client;
    private PeerQueue queue;
    private PeerApplier applier;
    private PeerCounters counters;
    private PeerStatus status;
    private PeerLinkMetrics metrics;
    private Backoff backoff;
    private long nextAttempt;
    /** the peers' partitions flow control paused; empty while consuming everything */
    private Set<TopicPartition> paused = Set.of();
    private String self;
    private PeerStore store;
    private Namespace heartbeats;
    private long heartbeatIntervalMs;
    private long nextHeartbeat;
    private LocalChangeWatcher localChanges;
    private FailedRecordHandler failedRecords;
    /** whether the peers this sink's earlier runs saw have been read back (once, from the destination) */
    private boolean earlierRunsRead;

    @Override
    protected void start(SinkConfig config, Map<String, String> props) {
        self = config.peer().clusterId().orElseThrow(() -> new ConnectException("peer.cluster.id is not set"));
        if (config.peer().keys() == null) {
            throw new ConnectException(PeerKeySettings.missing(props, PeerSinkSettings.CLUSTER_ID));
        }
        String dlq = PeerSinkSettings.dlqMissing(props);
        if (dlq != null) {
            throw new ConnectException(dlq);
        }
        if (TaskIdentity.of(props).task() > 0) {
            throw new ConnectException("peer mode runs ONE task per sink connector (two tasks would race on the same "
                    + "document's tombstone): set tasks.max=1");
        }
        heartbeats = config.peer().heartbeatNamespace().map(Namespace::parse).orElseThrow(() -> new ConnectException(
                PeerSinkSettings.HEARTBEAT_NAMESPACE + " is required in peer mode: without heartbeats a dead link cannot be told "
                        + "from a quiet one"));
        heartbeatIntervalMs = config.peer().heartbeatIntervalMs();
        String uri = config.connection().uri().value();
        TenantScope scope = TenantScope.of(config.peer().tenants());
        MongoClient c = MongoClientFactory.create(uri, "tideline-peer-sink", config.connection().connectTimeoutMs());
        try {
            PeerRecordReader reader = new PeerRecordReader(SinkFrontEnd.of(config, SinkFrontEnd.Documents.OBJECTS),
                    config.peer().keys());
            counters = new PeerCounters();
            store = new PeerStore(c, config.peer().tombstoneTtlMs());
            StampTrust trust = new StampTrust(self, config.peer().keys(), config.peer().unsignedBeforeSeconds());
            store.trust(trust);
            localChanges = new LocalChangeWatcher(c);
            queue = new PeerQueue(self, reader, counters, scope, heartbeats);
            failedRecords = new FailedRecordHandler(context, config.tolerateAll());
            applier = new PeerApplier(self, queue, store, counters, localChanges, trust, config.peer().clockMaxAheadMs());
            // peer mode runs one task per connector (validate() refuses more): the connector's name identifies it, so a
            // restarted task rewrites the same status document instead of leaving a stale one behind
            String taskId = props.getOrDefault("name", "peer-sink");
            metrics = new PeerLinkMetrics(TaskIdentity.of(props)); // JMX; closed in stop()
            status = new PeerStatus(c, config.peer().statusDatabase(), taskId, self, config.peer().lagDegradedMs(), metrics);
            backoff = new Backoff(config.retry().initialBackoffMs(), config.retry().maxBackoffMs());
            client = c;
        } catch (RuntimeException e) {
            c.close();
            if (metrics != null) {
                metrics.close();
            }
            throw e;
        }
        log.info("Tideline peer sink task started for cluster {}, writing to {}, carrying {}", self,
                MongoClientFactory.hostsOf(uri), scope);
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        if (System.currentTimeMillis() >= nextAttempt || !records.isEmpty()) {
            attempt(records);
        }
        flowControl();
        status.report(queue, counters, false);
    }

    private void attempt(Collection<SinkRecord> records) {
        // first: from here on the records wait in the queue, whatever fails below; those refused go to the DLQ
        failedRecords.handle(queue.add(records));
        try {
            if (!earlierRunsRead) {
                // read here, not in start(): a destination down while the worker starts is retried like any other failure
                status.expectPeersOfEarlierRuns(queue);
                earlierRunsRead = true;
            }
            applier.drain();
            long now = System.currentTimeMillis();
            if (heartbeats != null && now >= nextHeartbeat) {
                store.writeHeartbeat(heartbeats, self, now);
                nextHeartbeat = now + heartbeatIntervalMs;
            }
            if (backoff.attempts() > 0) {
                log.info("Peer sink: the destination answers again");
            }
            backoff.reset();
            status.recovered();
            nextAttempt = System.currentTimeMillis() + (queue.queued() > 0 ? QUEUED_RETRY_MS : 0);
        } catch (MongoException e) {
            ErrorClass kind = MongoErrors.classify(e);
            if (kind != ErrorClass.RETRIABLE && kind != ErrorClass.AUTH) {
                throw new ConnectException("Peer sink: the destination failed: " + e.getMessage(), e);
            }
            long wait = backoff.next();
            status.failed(kind == ErrorClass.AUTH ? HealthReason.AUTH_FAILED : HealthReason.DESTINATION_UNREACHABLE, e.getMessage());
            log.warn("Peer sink: {} (attempt {}); {} queued record(s) wait, next attempt in {} ms", LogText.message(e.getMessage()),
                    backoff.attempts(), queue.queued(), wait);
            nextAttempt = System.currentTimeMillis() + wait;
        }
    }

    /**
     * Stops consuming the peers' records while too much waits (an unreachable destination, many held documents).
     * This cluster's own records are still read: most waiting records wait for one of them (a local write's stamp, a
     * local delete's record, a later own record), so pausing them too would leave the queue waiting for records it
     * no longer reads.
     */
    private void flowControl() {
        int queued = queue.queued();
        if (paused.isEmpty() && queued > MAX_QUEUED) {
            Set<TopicPartition> peers = new HashSet<>(queue.peerPartitions());
            peers.retainAll(context.assignment());
            if (peers.isEmpty()) {
                return;
            }
            paused = peers;
            context.pause(paused.toArray(new TopicPartition[0]));
            log.warn("Peer sink: {} records wait; consumption of the peers' {} partition(s) paused until they drain (this "
                    + "cluster's own records are still read: they release the waiting ones)", queued, paused.size());
        } else if (!paused.isEmpty() && queued < MAX_QUEUED / 2) {
            paused.retainAll(context.assignment());
            context.resume(paused.toArray(new TopicPartition[0]));
            paused = Set.of();
        }
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> preCommit(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        Map<TopicPartition, Long> lowest = queue == null ? Map.of() : queue.lowestQueuedOffsets();
        Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        currentOffsets.forEach((tp, om) -> {
            Long queued = lowest.get(tp);
            out.put(tp, queued != null && queued < om.offset() ? new OffsetAndMetadata(queued) : om);
        });
        return out;
    }

    @Override
    public void stop() {
        if (status != null && queue != null) {
            status.report(queue, counters, true);
        }
        if (localChanges != null) {
            localChanges.close();
        }
        if (client != null) {
            client.close();
        }
        if (metrics != null) {
            metrics.close();
        }
    }
}
