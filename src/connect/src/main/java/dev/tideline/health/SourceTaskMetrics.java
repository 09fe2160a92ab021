package dev.tideline.health;

import com.mongodb.client.MongoCollection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;

/** A source task's metrics: one {@link SourceCollectionMetrics} per collection, their sums and the health roll-up. */
public final class SourceTaskMetrics extends TaskHealthMetrics implements SourceTaskMetricsMBean, AutoCloseable {
    public static final String TYPE = "source-task";

    private final TaskIdentity task;
    private final Jmx jmx = new Jmx();
    private final List<SourceCollectionMetrics> collections = new CopyOnWriteArrayList<>();
    private StateMirror mirror;
    private volatile CaptureGauges gauges;

    public SourceTaskMetrics(TaskIdentity task) {
        super(new HealthWatch("source task " + task));
        this.task = task;
        jmx.register(Jmx.name(TYPE, task, null), this);
    }

    /**
     * The metrics of one collection ({@code db.coll}) of database {@code db}, registered under the task's
     * name; its health includes its database's change stream's.
     */
    public SourceCollectionMetrics collection(String fullName, String db) {
        SourceCollectionMetrics m = new SourceCollectionMetrics(fullName, streamScope(db), health);
        collections.add(m);
        jmx.register(Jmx.name(TYPE, task, fullName), m);
        return m;
    }

    /** What the task holds (streams, copies, threads, connections), for the JMX gauges. */
    public void gauges(CaptureGauges g) {
        this.gauges = g;
    }

    /**
     * A database's change stream failed transiently and is reopened; {@code unreachable} when the server
     * could not be reached at all. Raised on the stream's scope: every collection it reads waits with it.
     */
    public void streamRetrying(String db, boolean unreachable) {
        String scope = streamScope(db);
        health.raise(scope, unreachable ? HealthReason.SOURCE_UNREACHABLE : HealthReason.RETRYING);
    }

    /** A database's change stream (re)opened: the server answers. */
    public void streamOpened(String db) {
        String scope = streamScope(db);
        health.clear(scope, HealthReason.SOURCE_UNREACHABLE);
        health.clear(scope, HealthReason.RETRYING);
    }

    /** The task cannot list its collections (the server is unreachable); cleared once it can. */
    public void discovery(boolean failing, boolean unreachable) {
        if (failing) {
            health.raise("discovery", unreachable ? HealthReason.SOURCE_UNREACHABLE : HealthReason.RETRYING);
        } else {
            health.clear("discovery", HealthReason.SOURCE_UNREACHABLE);
            health.clear("discovery", HealthReason.RETRYING);
        }
    }

    private static String streamScope(String db) {
        return "change stream of " + db;
    }

    /**
     * Mirrors the task's state into {@code collection} every {@code intervalMs} until {@link #close()}
     * (see {@link StateDocument}).
     */
    public synchronized void mirrorTo(MongoCollection<BsonDocument> collection, long intervalMs) {
        if (mirror == null) {
            mirror = new StateMirror(collection, task, health::current, () -> List.copyOf(collections), intervalMs);
        }
    }

    @Override
    public String[] getCollections() {
        return collections.stream().map(SourceCollectionMetrics::collection).toArray(String[]::new);
    }

    @Override
    public long getEvents() {
        return collections.stream().mapToLong(SourceCollectionMetrics::getEvents).sum();
    }

    @Override
    public double getEventsPerSecond() {
        return collections.stream().mapToDouble(SourceCollectionMetrics::getEventsPerSecond).sum();
    }

    @Override
    public long getMaxLagMillis() {
        return collections.stream().mapToLong(SourceCollectionMetrics::getLagMillis).max().orElse(-1);
    }

    @Override
    public long getRetries() {
        return collections.stream().mapToLong(SourceCollectionMetrics::getRetries).sum();
    }

    @Override
    public long getLostHistoryEvents() {
        return collections.stream().mapToLong(SourceCollectionMetrics::getLostHistoryEvents).sum();
    }

    @Override
    public int getChangeStreams() {
        CaptureGauges g = gauges;
        return g == null ? 0 : g.changeStreams();
    }

    @Override
    public int getBackfillsRunning() {
        CaptureGauges g = gauges;
        return g == null ? 0 : g.backfillsRunning();
    }

    @Override
    public int getBackfillsQueued() {
        CaptureGauges g = gauges;
        return g == null ? 0 : g.backfillsQueued();
    }

    @Override
    public int getStreamedCollections() {
        CaptureGauges g = gauges;
        return g == null ? 0 : g.streamedCollections();
    }

    @Override
    public String[] getParkedCollections() {
        CaptureGauges g = gauges;
        return g == null ? new String[0] : g.parkedCollections();
    }

    @Override
    public int getThreads() {
        CaptureGauges g = gauges;
        return g == null ? 0 : g.threads();
    }

    @Override
    public int getMongoConnections() {
        CaptureGauges g = gauges;
        return g == null ? 0 : g.mongoConnections();
    }

    /** Writes the final state (when mirrored) and unregisters every MBean of the task. Call before closing the client. */
    @Override
    public synchronized void close() {
        if (mirror != null) {
            mirror.close();
            mirror = null;
        }
        jmx.close();
    }
}
