package dev.tideline.verify.connect;

import dev.tideline.health.Health;
import dev.tideline.health.HealthState;
import dev.tideline.health.Jmx;
import dev.tideline.health.TaskIdentity;
import dev.tideline.log.LogText;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.RunResult;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A verify task's figures and health, written by its run, read by JMX; each change of health is logged once. */
public final class VerifyTaskMetrics implements VerifyTaskMetricsMBean, AutoCloseable {
    public static final String TYPE = "verify-task";
    private static final Logger log = LoggerFactory.getLogger(VerifyTaskMetrics.class);

    private final TaskIdentity task;
    private final Jmx jmx = new Jmx();
    private final AtomicLong runs = new AtomicLong();
    private final AtomicLong currentDocuments = new AtomicLong();
    private volatile boolean running;
    private volatile Health health = Health.OK;
    private volatile RunResult last;
    private volatile long lastStartMs = -1;
    private volatile long nextRunMs = -1;

    public VerifyTaskMetrics(TaskIdentity task) {
        this.task = task;
        jmx.register(Jmx.name(TYPE, task, null), this);
    }

    void started(long startMs) {
        running = true;
        lastStartMs = startMs;
        currentDocuments.set(0);
    }

    void progress(long documents) {
        currentDocuments.set(documents);
    }

    void finished(RunResult result, long nextRunAtMs) {
        Health before = health;
        Health after = VerifyHealth.of(result);
        last = result;
        health = after;
        running = false;
        runs.incrementAndGet();
        nextRunMs = nextRunAtMs;
        String line = "Verify run of " + task + ": " + result.describe();
        if (after.state() == HealthState.OK) {
            log.info("{}", LogText.message(line));
        } else {
            log.warn("{}", LogText.message(line));
        }
        if (!after.equals(before)) {
            if (after.state() == HealthState.OK) {
                log.info("Health of verify task {}: {} (was {})", LogText.escape(task), after, before);
            } else {
                log.warn("Health of verify task {}: {} (was {})", LogText.escape(task), after, before);
            }
        }
    }

    void nextRun(long atMs) {
        nextRunMs = atMs;
    }

    @Override
    public String getHealth() {
        return health.stateName();
    }

    @Override
    public String[] getHealthReasons() {
        return health.reasonArray();
    }

    @Override
    public long getRuns() {
        return runs.get();
    }

    @Override
    public boolean isRunInProgress() {
        return running;
    }

    @Override
    public long getCurrentRunDocuments() {
        return currentDocuments.get();
    }

    @Override
    public String getLastRunStart() {
        return lastStartMs < 0 ? "" : Instant.ofEpochMilli(lastStartMs).toString();
    }

    @Override
    public long getLastRunMillis() {
        RunResult r = last;
        return r == null ? 0 : r.millis();
    }

    @Override
    public String getLastOutcome() {
        RunResult r = last;
        return r == null ? "" : r.outcome().wireName();
    }

    @Override
    public long getLastDocuments() {
        RunResult r = last;
        return r == null ? 0 : r.documents();
    }

    @Override
    public double getLastDocumentsPerSecond() {
        RunResult r = last;
        return r == null || r.millis() == 0 ? 0 : r.documents() * 1000.0 / r.millis();
    }

    @Override
    public long getLastMissing() {
        return count(FindingKind.MISSING);
    }

    @Override
    public long getLastExtra() {
        return count(FindingKind.EXTRA);
    }

    @Override
    public long getLastDifferent() {
        return count(FindingKind.DIFFERENT);
    }

    @Override
    public long getLastInFlight() {
        return count(FindingKind.IN_FLIGHT);
    }

    @Override
    public long getLastSettled() {
        RunResult r = last;
        return r == null ? 0 : r.collections().stream().mapToLong(c -> c.settled()).sum();
    }

    @Override
    public String getNextRunAt() {
        return nextRunMs < 0 ? "" : Instant.ofEpochMilli(nextRunMs).toString();
    }

    private long count(FindingKind kind) {
        RunResult r = last;
        return r == null ? 0 : r.count(kind);
    }

    @Override
    public void close() {
        jmx.close();
    }
}
