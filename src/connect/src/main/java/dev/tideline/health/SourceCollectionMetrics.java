package dev.tideline.health;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one collection's capture reports. Written by the capture thread, read by JMX: plain volatile
 * fields and atomics, no locks on the data path.
 */
public final class SourceCollectionMetrics implements SourceCollectionMetricsMBean {
    private final String collection;
    /** The scope of the change stream that reads this collection (its database's): its failures are this collection's too. */
    private final String streamScope;
    private final HealthWatch health;
    private final RateWindow rate = new RateWindow();
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong heartbeats = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong lostHistory = new AtomicLong();
    private final AtomicLong repairsDone = new AtomicLong();
    private final AtomicLong repairCopied = new AtomicLong();
    private final AtomicLong repairDeleted = new AtomicLong();
    private volatile String repairRunning = "";
    private volatile long lastClusterTimeSeconds = -1;
    private volatile String phase = "starting";
    private volatile BackfillGauge backfill;
    private volatile Map<String, Object> position;

    SourceCollectionMetrics(String collection, String streamScope, HealthWatch health) {
        this.collection = collection;
        this.streamScope = streamScope;
        this.health = health;
    }

    public String collection() {
        return collection;
    }

    /** A batch handed to Kafka: {@code changes} changes, the last of them at {@code clusterTimeSeconds} (or -1). */
    public void published(int changes, int heartbeatCount, long clusterTimeSeconds, long nowMs) {
        if (changes > 0) {
            events.addAndGet(changes);
            rate.record(changes, nowMs);
        }
        heartbeats.addAndGet(heartbeatCount);
        if (clusterTimeSeconds > 0) {
            lastClusterTimeSeconds = clusterTimeSeconds;
        }
    }

    /** The collection's source offset after the last batch handed to Kafka (for the state document). */
    public void position(Map<String, Object> offset) {
        position = offset;
    }

    /** The last position handed to Kafka, or null before the first. */
    public Map<String, Object> position() {
        return position;
    }

    /** A reader opened: the server answered, so whatever was wrong with reaching it is over. */
    public void opened(String phaseName, BackfillGauge backfillOrNull) {
        phase = phaseName;
        if (backfillOrNull != null) {
            backfill = backfillOrNull;
        }
        health.clear(collection, HealthReason.SOURCE_UNREACHABLE);
        health.clear(collection, HealthReason.RETRYING);
    }

    /** The capture caught up with the stream again after a re-copy: lost history is resolved. */
    public void streaming() {
        phase = "stream";
        health.clear(collection, HealthReason.HISTORY_LOST);
    }

    /** A transient failure, retried; {@code unreachable} when the server could not be reached at all. */
    public void retrying(boolean unreachable) {
        retries.incrementAndGet();
        health.raise(collection, unreachable ? HealthReason.SOURCE_UNREACHABLE : HealthReason.RETRYING);
    }

    public void authFailed() {
        health.raise(collection, HealthReason.AUTH_FAILED);
    }

    /** The collection stopped for a reason of its own; the task's other collections go on. */
    public void parked() {
        phase = "parked";
        health.raise(collection, HealthReason.PARKED);
    }

    /** An event of this collection was skipped by policy (too large to send). */
    public void eventSkipped() {
        health.raise(collection, HealthReason.EVENT_SKIPPED);
    }

    /** @param recopying true when the collection is copied again (stalled until done), false when skipped ahead */
    public void historyLost(boolean recopying) {
        lostHistory.incrementAndGet();
        health.raise(collection, recopying ? HealthReason.HISTORY_LOST : HealthReason.HISTORY_SKIPPED);
    }

    @Override
    public String getPhase() {
        return phase;
    }

    @Override
    public long getEvents() {
        return events.get();
    }

    @Override
    public double getEventsPerSecond() {
        return rate.perSecond(System.currentTimeMillis());
    }

    @Override
    public String getLastEventClusterTime() {
        long t = lastClusterTimeSeconds;
        return t < 0 ? "" : Instant.ofEpochSecond(t).toString();
    }

    @Override
    public long getLagMillis() {
        long t = lastClusterTimeSeconds;
        return t < 0 ? -1 : Math.max(0, System.currentTimeMillis() - t * 1000);
    }

    @Override
    public long getBackfillCopied() {
        BackfillGauge b = backfill;
        return b == null ? 0 : b.copied();
    }

    @Override
    public long getBackfillEstimatedTotal() {
        BackfillGauge b = backfill;
        return b == null ? 0 : b.estimatedTotal();
    }

    @Override
    public double getBackfillDocsPerSecond() {
        BackfillGauge b = backfill;
        return b == null ? 0 : b.rate(System.currentTimeMillis());
    }

    @Override
    public long getBackfillEtaSeconds() {
        BackfillGauge b = backfill;
        return b == null ? 0 : b.etaSeconds(System.currentTimeMillis());
    }

    /** A repair started (or resumed): its signal, as people read it. */
    public void repairStarted(String signal) {
        repairRunning = signal;
    }

    /** A repair's chunk went out: documents copied again, documents deleted downstream. */
    public void repairChunk(long copied, long deleted) {
        repairCopied.addAndGet(copied);
        repairDeleted.addAndGet(deleted);
    }

    /** The running repair ended (done, or stopped with its reason logged). */
    public void repairEnded(boolean done) {
        repairRunning = "";
        if (done) {
            repairsDone.incrementAndGet();
        }
    }

    @Override
    public String getRepairRunning() {
        return repairRunning;
    }

    @Override
    public long getRepairsDone() {
        return repairsDone.get();
    }

    @Override
    public long getRepairDocumentsCopied() {
        return repairCopied.get();
    }

    @Override
    public long getRepairDocumentsDeleted() {
        return repairDeleted.get();
    }

    @Override
    public long getHeartbeats() {
        return heartbeats.get();
    }

    @Override
    public long getRetries() {
        return retries.get();
    }

    @Override
    public long getLostHistoryEvents() {
        return lostHistory.get();
    }

    @Override
    public String getHealth() {
        return health.of(collection, streamScope).stateName();
    }

    @Override
    public String[] getHealthReasons() {
        return health.of(collection, streamScope).reasonArray();
    }
}
