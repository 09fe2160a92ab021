package dev.tideline.health;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A source task's metrics: one {@link SourceCollectionMetrics} per collection, their sums and the health roll-up. */
public final class SourceTaskMetrics implements SourceTaskMetricsMBean, AutoCloseable {
    public static final String TYPE = "source-task";

    private final TaskIdentity task;
    private final HealthWatch health;
    private final Jmx jmx = new Jmx();
    private final List<SourceCollectionMetrics> collections = new CopyOnWriteArrayList<>();

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

    public Health health() {
        return health.current();
    }

    @Override
    public String getHealth() {
        return health.current().state().wireName();
    }

    @Override
    public String[] getHealthReasons() {
        return health.current().reasons().toArray(String[]::new);
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

    /** Unregisters every MBean of the task. */
    @Override
    public void close() {
        jmx.close();
    }
}
