package dev.tideline.health;

import com.mongodb.client.MongoCollection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;

/** A source task's metrics: one {@link SourceCollectionMetrics} per collection, their sums and the health roll-up. */
public final class SourceTaskMetrics implements SourceTaskMetricsMBean, AutoCloseable {
    public static final String TYPE = "source-task";

    private final TaskIdentity task;
    private final HealthWatch health;
    private final Jmx jmx = new Jmx();
    private final List<SourceCollectionMetrics> collections = new CopyOnWriteArrayList<>();
    private StateMirror mirror;

    public SourceTaskMetrics(TaskIdentity task) {
        this.task = task;
        this.health = new HealthWatch("source task " + task);
        jmx.register(Jmx.name(TYPE, task, null), this);
    }

    /** The metrics of one collection ({@code db.coll}), registered under the task's name. */
    public SourceCollectionMetrics collection(String fullName) {
        SourceCollectionMetrics m = new SourceCollectionMetrics(fullName, health);
        collections.add(m);
        jmx.register(Jmx.name(TYPE, task, fullName), m);
        return m;
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
    public String getHealth() {
        return health.current().stateName();
    }

    @Override
    public String[] getHealthReasons() {
        return health.current().reasonArray();
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
