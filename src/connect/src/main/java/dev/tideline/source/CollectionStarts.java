package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.health.SourceTaskMetrics;
import dev.tideline.log.LogText;
import dev.tideline.source.StartPlanner.Plan;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.InvalidOffsetException;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import dev.tideline.source.config.CaptureSettings;
import dev.tideline.source.config.SourceConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.kafka.connect.storage.OffsetStorageReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a collection the task found starts: its {@link CollectionCapture} (record factory, metrics, filter,
 * its stored offset as its position), where it starts ({@link StartPlanner}) and which reader takes it
 * first; a stored offset that cannot be used parks it. Also makes the captures of chunks of split copies.
 */
final class CollectionStarts {
    private static final Logger log = LoggerFactory.getLogger(CollectionStarts.class);

    private final SourceConfig config;
    private final MongoClient client;
    private final OffsetStorageReader offsets;
    private final StreamSupport streamSupport = new StreamSupport();
    private final String producer;
    private final SourceTaskMetrics metrics;
    private final SkipStarts skipStarts;
    private final CollectionCapture.Wiring wiring;
    private final Supplier<CollectionScans> scans;
    /** The collections the task captures. */
    private final Map<Namespace, CollectionCapture> collections;
    /** The metrics of collections this task copies chunks of without capturing them. */
    private final Map<Namespace, CaptureMetrics> chunkMetrics = new ConcurrentHashMap<>();

    CollectionStarts(SourceConfig config, MongoClient client, OffsetStorageReader offsets, String producer, SourceTaskMetrics metrics, SkipStarts skipStarts,
                     CollectionCapture.Wiring wiring, Supplier<CollectionScans> scans, Map<Namespace, CollectionCapture> collections) {
        this.config = config;
        this.client = client;
        this.offsets = offsets;
        this.producer = producer;
        this.metrics = metrics;
        this.skipStarts = skipStarts;
        this.wiring = wiring;
        this.scans = scans;
        this.collections = collections;
    }

    /**
     * Starts capturing new collections of the task, each from its stored offset.
     *
     * @param listed         every collection the listing found (the task's and the others')
     * @param skipStartsKept whether the start of an initial sync without copy is kept (for collections without offsets)
     * @return whether the collections are read with change streams
     */
    boolean begin(List<Namespace> mine, List<Namespace> listed, boolean skipStartsKept) throws InterruptedException {
        boolean useStreams = useStreams(mine.get(0));
        if (useStreams && skipStartsKept) {
            skipStarts.ensure(listed, () -> storedOffsets(listed).values().stream().anyMatch(Objects::nonNull));
        }
        Map<Map<String, Object>, Map<String, Object>> stored = storedOffsets(mine);
        for (Namespace ns : mine) {
            begin(ns, stored.get(SourcePartition.of(ns)), useStreams);
        }
        return useStreams;
    }

    /** Whether the source serves change streams, decided once by opening one (mode=auto), never by a failure that waiting cures. */
    private boolean useStreams(Namespace probe) {
        CaptureSettings.Mode mode = config.capture().mode();
        if (mode != CaptureSettings.Mode.AUTO) {
            return mode == CaptureSettings.Mode.CHANGE_STREAM;
        }
        return streamSupport.available(client.getDatabase(probe.db()));
    }

    private Map<Map<String, Object>, Map<String, Object>> storedOffsets(List<Namespace> namespaces) {
        List<Map<String, Object>> partitions = new ArrayList<>();
        namespaces.forEach(ns -> partitions.add(SourcePartition.of(ns)));
        Map<Map<String, Object>, Map<String, Object>> found = offsets.offsets(partitions);
        return found == null ? new HashMap<>() : found;
    }

    /** Starts capturing {@code ns} from its stored offset ({@code storedMap}, null when it has none). */
    private void begin(Namespace ns, Map<String, Object> storedMap, boolean useStreams) throws InterruptedException {
        SourceOffset stored;
        try {
            stored = storedMap == null ? null : SourceOffset.fromMap(storedMap);
        } catch (InvalidOffsetException e) {
            CollectionCapture c = capture(ns, recordsFor(ns), RepairProgress.NONE, null);
            collections.put(ns, c);
            c.park("its stored offset cannot be used (" + e.getMessage() + "). Reset it (PATCH or DELETE "
                    + "/connectors/<name>/offsets with the connector stopped)");
            return;
        }
        // the stored offset was read by fromMap above: its repair progress is valid
        RecordFactory records = recordsFor(ns);
        if (config.peer().clusterId().isPresent()) {
            // the origin labeler resumes from the clock kept in the collection's offset
            records = records.withPeerTagging(new PeerOriginTagger(config.peer(), client.getDatabase(ns.db()), ns.coll(), storedMap));
        }
        CollectionCapture c = capture(ns, records, SourceOffset.repair(storedMap), stored);
        collections.put(ns, c);
        Plan plan = StartPlanner.plan(stored, config.capture().mode(), config.capture().initialSync(), useStreams,
                () -> skipStarts.startOf(ns));
        log.info("Capture of {} -> topic {}: {} from {}", LogText.escape(ns), c.records().topic(), plan.phase(),
                LogText.escape(plan.offset() == null ? "its initial sync" : plan.offset()));
        switch (plan.phase()) {
            case BACKFILL -> wiring.copies().submit(c, plan.offset());
            case STREAM -> {
                if (stored == null) {
                    // a new collection streaming from a start time: commit that start now
                    wiring.publisher().publish(c, List.of(new Captured.Heartbeat(plan.offset())));
                }
                c.stream(plan.offset());
            }
            case SCAN -> scans.get().submit(c, plan.offset());
            default -> throw new IllegalStateException("unknown phase " + plan.phase());
        }
    }

    /** A capture that publishes a chunk of {@code ns}'s split copy under {@code partition}, its position {@code stored}. */
    CollectionCapture chunkCapture(Namespace ns, Map<String, Object> partition, SourceOffset stored) {
        CollectionCapture c = collections.get(ns);
        if (c != null) {
            return c.forChunk(c.records().forChunk(partition), stored);
        }
        CaptureMetrics cm = chunkMetrics.computeIfAbsent(ns, n -> new CaptureMetrics(metrics.collection(n.fullName(), wiring.streams().nameOf(n.db()))));
        return new CollectionCapture(ns, recordsFor(ns).forChunk(partition), new RecordState(RepairProgress.NONE), cm,
                config.capture().filterFor(ns), stored, wiring);
    }

    /** @param repair where the collection's repairs stand, as its stored offset says */
    private CollectionCapture capture(Namespace ns, RecordFactory records, RepairProgress repair, SourceOffset stored) {
        CaptureMetrics cm = new CaptureMetrics(metrics.collection(ns.fullName(), wiring.streams().nameOf(ns.db())));
        return new CollectionCapture(ns, records, new RecordState(repair), cm, config.capture().filterFor(ns), stored, wiring);
    }

    private RecordFactory recordsFor(Namespace ns) {
        return new RecordFactory(ns, config.topics().namer().topicFor(ns), config.topics().heartbeatTopic(),
                config.topics().controlTopic(), config.capture().outputFormat(), config.capture().tenantField(),
                config.capture().deleteTombstone(), producer);
    }
}
