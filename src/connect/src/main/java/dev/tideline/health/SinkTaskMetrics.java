package dev.tideline.health;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** A sink task's metrics and health; written by the task thread, read by JMX. */
public final class SinkTaskMetrics extends TaskHealthMetrics implements SinkTaskMetricsMBean, AutoCloseable {
    public static final String TYPE = "sink-task";
    private static final String SCOPE = "destination";

    private final Jmx jmx = new Jmx();
    private final RateWindow rate = new RateWindow();
    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();
    private final AtomicLong staleSkipped = new AtomicLong();
    private volatile long lastEventTimeMs = -1;

    /**
     * @param destination what the sink writes to, the {@code destination} key of the bean's name (a label in Prometheus):
     *                    see {@link #destination}
     */
    public SinkTaskMetrics(TaskIdentity task, String destination) {
        super(new HealthWatch("sink task " + task));
        jmx.register(name(task, destination), this);
    }

    /** {@code dev.tideline:type=sink-task,connector=X,task=N,destination=D}. */
    public static javax.management.ObjectName name(TaskIdentity task, String destination) {
        return Jmx.name(TYPE, task, "destination", destination);
    }

    /**
     * The destination as operators name it without a secret: the connection string's host list (as the driver parses
     * it: never the user, the password or the options), then {@code /database} when the sink writes one database.
     */
    public static String destination(String hosts, java.util.Optional<String> database) {
        return hosts + database.map(d -> "/" + d).orElse("");
    }

    /**
     * A batch went through: {@code written} records accepted, {@code stale} skipped by the stale-write guard (older than
     * the destination's version), the newest with timestamp {@code newestEventTimeMs} (or -1).
     */
    public void applied(int written, int stale, int deadLetteredRecords, long newestEventTimeMs, long nowMs) {
        applied.addAndGet(written);
        staleSkipped.addAndGet(stale);
        rate.record(written, nowMs);
        deadLettered.addAndGet(deadLetteredRecords);
        if (newestEventTimeMs > lastEventTimeMs) {
            lastEventTimeMs = newestEventTimeMs;
        }
        health.clear(SCOPE, HealthReason.DESTINATION_UNREACHABLE);
        health.clear(SCOPE, HealthReason.RETRYING);
    }

    public void retrying(boolean unreachable) {
        retries.incrementAndGet();
        health.raise(SCOPE, unreachable ? HealthReason.DESTINATION_UNREACHABLE : HealthReason.RETRYING);
    }

    public void authFailed() {
        health.raise(SCOPE, HealthReason.AUTH_FAILED);
    }

    @Override
    public long getRecordsApplied() {
        return applied.get();
    }

    @Override
    public double getRecordsAppliedPerSecond() {
        return rate.perSecond(System.currentTimeMillis());
    }

    @Override
    public long getRetries() {
        return retries.get();
    }

    @Override
    public long getStaleSkipped() {
        return staleSkipped.get();
    }

    @Override
    public long getDeadLetterRecords() {
        return deadLettered.get();
    }

    @Override
    public String getLastAppliedEventTime() {
        long t = lastEventTimeMs;
        return t < 0 ? "" : Instant.ofEpochMilli(t).toString();
    }

    @Override
    public long getLagMillis() {
        long t = lastEventTimeMs;
        return t < 0 ? -1 : Math.max(0, System.currentTimeMillis() - t);
    }

    @Override
    public void close() {
        jmx.close();
    }
}
