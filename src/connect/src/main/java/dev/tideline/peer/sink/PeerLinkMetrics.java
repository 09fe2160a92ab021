package dev.tideline.peer.sink;

import dev.tideline.health.Health;
import dev.tideline.health.Jmx;
import dev.tideline.health.TaskIdentity;
import dev.tideline.peer.sink.PeerCounters.Refusal;
import java.util.Map;

/**
 * A peer sink task's MBean. The task thread publishes a snapshot at each status report ({@link #update}); JMX reads
 * only the snapshot, never the queue or the counters, which the task thread alone touches.
 */
public final class PeerLinkMetrics implements PeerLinkMetricsMBean, AutoCloseable {
    public static final String TYPE = "peer-sink";

    /** What the task last reported. */
    private record Snapshot(Health health, long roundTripMs, long lastRecordTimestamp, int queued, int held, long received,
                            long conflictsResolved, Map<Refusal, Long> refused) {
    }

    private final Jmx jmx = new Jmx();
    private volatile Snapshot last = new Snapshot(Health.OK, -1, -1, 0, 0, 0, 0, Map.of());

    PeerLinkMetrics(TaskIdentity task) {
        jmx.register(Jmx.name(TYPE, task, null), this);
    }

    void update(Health health, PeerQueue queue, PeerCounters counters) {
        long roundTrip = queue.roundTrips().lastRoundTripMs().values().stream().mapToLong(Long::longValue).max().orElse(-1);
        last = new Snapshot(health, roundTrip, queue.lastRecordTimestamp(), queue.queued(), queue.heldDocuments(),
                counters.records(), counters.conflictsResolved(), counters.refusals());
    }

    @Override
    public String getHealth() {
        return last.health().stateName();
    }

    @Override
    public String[] getHealthReasons() {
        return last.health().reasonArray();
    }

    @Override
    public long getRoundTripLagMillis() {
        return last.roundTripMs();
    }

    @Override
    public long getApplyLagMillis() {
        long t = last.lastRecordTimestamp();
        return t < 0 ? -1 : Math.max(0, System.currentTimeMillis() - t);
    }

    @Override
    public int getQueuedRecords() {
        return last.queued();
    }

    @Override
    public int getHeldDocuments() {
        return last.held();
    }

    @Override
    public long getRecordsReceived() {
        return last.received();
    }

    @Override
    public long getConflictsResolved() {
        return last.conflictsResolved();
    }

    @Override
    public long getRefusedMissingMac() {
        return refused(Refusal.MISSING_MAC);
    }

    @Override
    public long getRefusedBadMac() {
        return refused(Refusal.BAD_MAC);
    }

    @Override
    public long getRefusedMalformed() {
        return refused(Refusal.MALFORMED);
    }

    @Override
    public long getRefusedByPolicy() {
        return refused(Refusal.REFUSED);
    }

    private long refused(Refusal kind) {
        return last.refused().getOrDefault(kind, 0L);
    }

    @Override
    public void close() {
        jmx.close();
    }
}
