package dev.tideline.peer.sink;

import com.mongodb.client.MongoClient;
import com.mongodb.client.model.Filters;
import dev.tideline.health.Health;
import dev.tideline.health.HealthReason;
import dev.tideline.health.HealthState;
import dev.tideline.health.StatusDocumentWriter;
import dev.tideline.log.LogText;
import dev.tideline.peer.PeerCollections;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Health of this direction of the link (ok / degraded / stalled / down, with reasons: records refused to the dead
 * letter queue in the last {@value #REFUSALS_SHOWN_MS} ms make it degraded), logged when it
 * changes and every {@value #LOG_EVERY_MS} ms, and kept in the status database's
 * {@value PeerCollections#STATUS} collection (one document per task) every {@value #WRITE_EVERY_MS} ms.
 */
final class PeerStatus {
    private static final Logger log = LoggerFactory.getLogger(PeerStatus.class);
    static final long WRITE_EVERY_MS = 2_000;
    static final long LOG_EVERY_MS = 30_000;
    static final long STALLED_AFTER_MS = 30_000;
    /** a link that refused a record to the dead letter queue stays degraded this long after it */
    static final long REFUSALS_SHOWN_MS = 10 * 60_000;
    /** a status document not rewritten for this long comes from a task that no longer runs */
    static final long STALE_AFTER_MS = 5 * WRITE_EVERY_MS;

    private final MongoClient client;
    private final String database;
    private final String taskId;
    private final String self;
    private final long lagDegradedMs;
    private HealthState lastHealth;
    private long lastWrite;
    private long lastLog;
    private String failure;
    private final StatusDocumentWriter writer;
    private HealthReason failureReason;
    private final PeerLinkMetrics metrics;

    PeerStatus(MongoClient client, String database, String taskId, String self, long lagDegradedMs, PeerLinkMetrics metrics) {
        this.metrics = metrics;
        this.client = client;
        this.database = database;
        this.taskId = taskId;
        this.self = self;
        this.lagDegradedMs = lagDegradedMs;
        this.writer = new StatusDocumentWriter(client.getDatabase(database).getCollection(PeerCollections.STATUS, BsonDocument.class),
                "the status document of peer sink " + taskId);
    }

    /** A failure that is not about one record (unreachable, refused credentials), until {@link #recovered}. */
    void failed(HealthReason reason, String detail) {
        failureReason = reason;
        failure = detail;
    }

    void recovered() {
        failureReason = null;
        failure = null;
    }

    /**
     * The peers this sink's earlier runs saw heartbeats back through (kept in its status document): their heartbeats
     * are expected back in this run too, so a link that stays dead across a restart is reported, not forgotten.
     */
    void expectPeersOfEarlierRuns(PeerQueue queue) {
        BsonDocument earlier = client.getDatabase(database).getCollection(PeerCollections.STATUS, BsonDocument.class)
                .find(Filters.eq("_id", taskId)).first();
        if (earlier != null && earlier.isArray("peers")) {
            earlier.getArray("peers").stream().filter(v -> v.isString() && !v.asString().getValue().equals(self))
                    .forEach(v -> queue.roundTrips().expect(v.asString().getValue()));
        }
    }

    void report(PeerQueue queue, PeerCounters counters, boolean force) {
        long now = System.currentTimeMillis();
        List<HealthReason> reasons = new ArrayList<>();
        List<String> details = new ArrayList<>();
        if (failureReason != null) {
            reasons.add(failureReason);
            details.add(failure);
        }
        // waiting a moment for a local write's stamp is normal under concurrent writes: stalled means held for long,
        // or refused by the destination
        List<String> held = queue.heldReasons(now - STALLED_AFTER_MS);
        if (!held.isEmpty()) {
            reasons.add(HealthReason.HELD_RECORDS);
            details.add(held.size() + " document(s) refused by the destination or held for over " + STALLED_AFTER_MS
                    + " ms, first: " + held.get(0));
        }
        if (counters.lastRefusalAt() >= 0 && now - counters.lastRefusalAt() <= REFUSALS_SHOWN_MS) {
            reasons.add(HealthReason.REFUSED_RECORDS);
            details.add(counters.refusedTotal() + " record(s) sent to the dead letter queue since the task started ("
                    + counters.refusalCounts() + "), not applied here; the last " + (now - counters.lastRefusalAt())
                    + " ms ago: " + counters.lastRefusal());
        }
        long lag = queue.lastRecordTimestamp() < 0 ? 0 : now - queue.lastRecordTimestamp();
        if (queue.queued() > 0 && lag > lagDegradedMs) {
            reasons.add(HealthReason.LAG);
            details.add("last record is " + lag + " ms old");
        }
        long behind = queue.behindMs(now, WRITE_EVERY_MS * 2);
        if (behind > lagDegradedMs) {
            if (!reasons.contains(HealthReason.LAG)) {
                reasons.add(HealthReason.LAG);
            }
            details.add("catching up: the changes received last were made " + behind + " ms before they arrived");
        }
        List<String> lagging = queue.roundTrips().lagging(now, lagDegradedMs);
        if (!lagging.isEmpty()) {
            if (!reasons.contains(HealthReason.LAG)) {
                reasons.add(HealthReason.LAG);
            }
            details.addAll(lagging);
        }
        Health rolledUp = Health.rollUp("link", new java.util.LinkedHashSet<>(reasons));
        metrics.update(rolledUp, queue, counters);
        HealthState health = rolledUp.state();
        if (health != lastHealth || now - lastLog >= LOG_EVERY_MS) {
            String line = "Peer sink " + taskId + " (cluster " + self + "): " + health.wireName() + " " + details + "; " + counters;
            if (health == HealthState.OK) {
                log.info("{}", LogText.message(line));
            } else {
                log.warn("{}", LogText.message(line));
            }
            lastHealth = health;
            lastLog = now;
        }
        if (force || now - lastWrite >= WRITE_EVERY_MS) {
            lastWrite = now;
            write(health, reasons, details, queue, counters);
        }
    }

    private void write(HealthState health, List<HealthReason> reasons, List<String> details, PeerQueue queue,
                       PeerCounters counters) {
        BsonArray r = new BsonArray();
        reasons.forEach(x -> r.add(new BsonString(x.label())));
        BsonArray d = new BsonArray();
        details.forEach(x -> d.add(new BsonString(x)));
        BsonDocument doc = new BsonDocument("_id", new BsonString(taskId)).append("cluster", new BsonString(self))
                .append("health", new BsonString(health.wireName())).append("reasons", r).append("details", d)
                .append("queued", new BsonInt32(queue.queued()))
                .append("updatedAt", new BsonInt64(System.currentTimeMillis()))
                // a reader must not trust a status its task stopped rewriting (a dead worker leaves its last one behind)
                .append("expiresAt", new BsonDateTime(System.currentTimeMillis() + STALE_AFTER_MS))
                .append("counters", counters.toBson());
        BsonDocument roundTrips = new BsonDocument();
        queue.roundTrips().lastRoundTripMs().forEach((peer, ms) -> roundTrips.append(peer, new BsonInt64(ms)));
        doc.append("roundTripLagMs", roundTrips);
        // copies of nothing from peers (drops there), which peer mode does not apply: counted, never a health reason,
        // since a first copy of an empty collection looks the same (docs/peer-replication.md#drops)
        doc.append("copiesOfNothingNotApplied", new BsonInt64(queue.markers().notApplied()));
        BsonArray peers = new BsonArray();
        queue.roundTrips().peers().forEach(p -> peers.add(new BsonString(p)));
        doc.append("peers", peers);
        writer.write(doc);
    }
}
