package dev.tideline.sink.config;

import dev.tideline.peer.ClusterId;
import dev.tideline.peer.PeerKeySettings;
import dev.tideline.peer.PeerLimits;
import dev.tideline.peer.StampKeys;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** Peer (active-active) mode of the sink: this cluster's id turns it on. */
public final class PeerSinkSettings {
    public static final String GROUP = "Peer replication";
    public static final String CLUSTER_ID = "peer.cluster.id";
    public static final String TOMBSTONE_TTL_MS = "peer.tombstone.ttl.ms";
    public static final long DEFAULT_TOMBSTONE_TTL_MS = 7L * 24 * 3600 * 1000;
    public static final long MIN_TOMBSTONE_TTL_MS = 60_000L;
    public static final String STATUS_DATABASE = "peer.status.database";
    public static final String LAG_DEGRADED_MS = "peer.lag.degraded.ms";
    public static final String TENANTS = "peer.tenants";
    public static final String HEARTBEAT_NAMESPACE = "peer.heartbeat.namespace";
    public static final String HEARTBEAT_INTERVAL_MS = "peer.heartbeat.interval.ms";
    public static final String CLOCK_MAX_AHEAD_MS = "peer.clock.max.ahead.ms";
    public static final String UNSIGNED_BEFORE = "peer.stamp.unsigned.before";
    /** Connect's keys that peer mode requires, so that a record it refuses is kept in the dead letter queue */
    static final String ERRORS_DLQ_TOPIC = "errors.deadletterqueue.topic.name";

    private final Optional<String> clusterId;
    private final long tombstoneTtlMs;
    private final String statusDatabase;
    private final long lagDegradedMs;
    private final List<String> tenants;
    private final Optional<String> heartbeatNamespace;
    private final long heartbeatIntervalMs;
    private final StampKeys keys;
    private final long clockMaxAheadMs;
    private final long unsignedBeforeSeconds;

    PeerSinkSettings(AbstractConfig c) {
        String id = c.getString(CLUSTER_ID).trim();
        clusterId = id.isEmpty() ? Optional.empty() : Optional.of(id);
        tombstoneTtlMs = c.getLong(TOMBSTONE_TTL_MS);
        statusDatabase = c.getString(STATUS_DATABASE).trim();
        lagDegradedMs = c.getLong(LAG_DEGRADED_MS);
        tenants = c.getList(TENANTS).stream().map(String::trim).filter(t -> !t.isEmpty()).toList();
        heartbeatNamespace = Optional.of(c.getString(HEARTBEAT_NAMESPACE).trim()).filter(n -> !n.isEmpty());
        heartbeatIntervalMs = c.getLong(HEARTBEAT_INTERVAL_MS);
        keys = PeerKeySettings.keys(c);
        clockMaxAheadMs = c.getLong(CLOCK_MAX_AHEAD_MS);
        String cutOff = c.getString(UNSIGNED_BEFORE).trim();
        unsignedBeforeSeconds = cutOff.isEmpty() ? 0 : Instant.parse(cutOff).getEpochSecond();
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(CLUSTER_ID, Type.STRING, "", ClusterId.validator(), Importance.MEDIUM,
                "Id of the cluster this sink writes to; empty (default): the normal sink. When set, the sink runs in PEER "
                        + "mode (active-active, see docs/peer-replication.md): it reads topics of Tideline sources running "
                        + "with peer.cluster.id (its own cluster's and its peers'), never applies a change that originated "
                        + "on its own cluster (echoes are counted and skipped), applies the rest under last-writer-wins on "
                        + "(origin time, origin id) with tombstones, records every conflict in '_tideline_peer_conflicts', "
                        + "and HOLDS a record the destination refuses (retried, the document's later records wait behind it) "
                        + "instead of skipping it. A record it must not apply (no valid stamp or delete MAC, malformed, "
                        + "refused by database.allow, record.max.bytes, record.signing.key or version.max.ahead.ms, an update "
                        + "MongoDB would refuse) goes to the dead letter queue "
                        + "with the reason and is counted in the status: peer mode requires errors.tolerance=all and "
                        + "errors.deadletterqueue.topic.name. Must equal peer.cluster.id of the source on the same cluster.",
                GROUP, ++order, Width.SHORT, "Cluster id");
        def.define(TOMBSTONE_TTL_MS, Type.LONG, DEFAULT_TOMBSTONE_TTL_MS, ConfigDef.Range.atLeast(MIN_TOMBSTONE_TTL_MS), Importance.LOW,
                "How long the tombstone of a deleted document is kept (in '_tideline_peer_tombstones', with a TTL index on "
                        + "'expireAt'). While it is kept, an older write arriving late cannot bring the document back. Make it "
                        + "longer than the longest time a link may be stopped or lagging.",
                GROUP, ++order, Width.SHORT, "Tombstone TTL (ms)");
        def.define(STATUS_DATABASE, Type.STRING, "tideline", new DatabaseNameValidator(), Importance.LOW,
                "Database of the '_tideline_peer_status' collection, where each peer sink task keeps one document: "
                        + "health (ok/degraded/stalled/down), reasons and counters.",
                GROUP, ++order, Width.SHORT, "Status database");
        def.define(LAG_DEGRADED_MS, Type.LONG, 60_000L, ConfigDef.Range.atLeast(1L), Importance.LOW,
                "A link whose last applied record is older than this (record timestamp to now) is reported 'degraded' (reason lag).",
                GROUP, ++order, Width.SHORT, "Lag threshold (ms)");
        def.define(TENANTS, Type.LIST, "", Importance.LOW,
                "Tenant scope of this direction of the link: a comma-separated list of tenants; empty (default): every "
                        + "tenant. When set, the sink applies only the peers' writes whose tenant (the 'tl.tenant' header, taken by "
                        + "the source from its tenant.field) is listed; writes of other tenants and of documents without one "
                        + "are left out (counted as 'outOfScope'). Deletes are always applied (they carry no document). Set "
                        + "tenant.field on the sources of the link. A document moved to an unlisted tenant keeps, here, its "
                        + "last listed version.",
                GROUP, ++order, Width.LONG, "Tenants");
        def.define(HEARTBEAT_NAMESPACE, Type.STRING, "", NAMESPACE_OR_EMPTY, Importance.LOW,
                "Namespace ('database.collection') where this sink writes its cluster's heartbeat document ({_id: "
                        + "peer.cluster.id, at: wall time}) every peer.heartbeat.interval.ms; required in peer mode (a link "
                        + "whose heartbeats do not come back is reported 'degraded': a dead link is never 'ok'). "
                        + "The sources of the link must capture it and the sinks read its topics, like any replicated "
                        + "collection: the heartbeat crosses to each peer and comes back as an echo, and the time it took is "
                        + "the link's round-trip lag (status field 'roundTripLagMs' per peer; 'lag' when the newest one back "
                        + "is older than peer.lag.degraded.ms). Use the same namespace on every cluster.",
                GROUP, ++order, Width.MEDIUM, "Heartbeat namespace");
        def.define(HEARTBEAT_INTERVAL_MS, Type.LONG, 5_000L, ConfigDef.Range.atLeast(100L), Importance.LOW,
                "How often the heartbeat document is written (see peer.heartbeat.namespace).",
                GROUP, ++order, Width.SHORT, "Heartbeat interval (ms)");
        def.define(CLOCK_MAX_AHEAD_MS, Type.LONG, PeerLimits.MAX_CLOCK_AHEAD_SECONDS * 1000, ConfigDef.Range.between(1_000L, 86_400_000L),
                Importance.LOW, "A record whose version (origin cluster time) is further ahead of this worker's clock than this is "
                        + "held (health 'stalled', with the reason) until the clocks agree, instead of winning every later "
                        + "comparison: MongoDB cluster times follow the servers' clocks, so a version far in the future is a "
                        + "broken clock or a forged value.",
                GROUP, ++order, Width.SHORT, "Max clock lead (ms)");
        order = PeerKeySettings.define(def, GROUP, order);
        def.define(UNSIGNED_BEFORE, Type.STRING, "", INSTANT_OR_EMPTY, Importance.LOW,
                "Only for a link that ran before it had a peer.stamp.key: the instant (ISO-8601, e.g. "
                        + "2026-01-31T12:00:00Z) the key was set. Stamps and tombstones without a MAC whose version is older "
                        + "than it were written before the key and are trusted; without it a document nobody writes again "
                        + "would hold every later peer change of it. Empty (default): no unsigned stamp is trusted, right "
                        + "for a link that had its key from the start. Configuration, not a document in the database, so "
                        + "nobody who can write the database can move it.",
                GROUP, ++order, Width.MEDIUM, "Unsigned stamps before");
    }

    private static final ConfigDef.Validator INSTANT_OR_EMPTY = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            String v = value == null ? "" : value.toString().trim();
            if (v.isEmpty()) {
                return;
            }
            try {
                Instant.parse(v);
            } catch (DateTimeParseException e) {
                throw new org.apache.kafka.common.config.ConfigException(name, value,
                        "must be an ISO-8601 instant in UTC such as 2026-01-31T12:00:00Z, or empty");
            }
        }

        @Override
        public String toString() {
            return "an ISO-8601 instant (e.g. 2026-01-31T12:00:00Z), or empty";
        }
    };

    private static final ConfigDef.Validator NAMESPACE_OR_EMPTY = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            String v = value == null ? "" : value.toString().trim();
            int dot = v.indexOf('.');
            if (!v.isEmpty() && (dot <= 0 || dot == v.length() - 1)) {
                throw new org.apache.kafka.common.config.ConfigException(name, value,
                        "must be 'database.collection' (e.g. app.tideline_peer_heartbeats)");
            }
            String coll = v.isEmpty() ? "" : v.substring(dot + 1);
            if (coll.startsWith("_tideline") || coll.startsWith("system.")) {
                throw new org.apache.kafka.common.config.ConfigException(name, value, "the sources never capture system.* and "
                        + "_tideline* collections, so heartbeats there would never cross the link: use another collection "
                        + "name (e.g. " + v.substring(0, dot) + ".tideline_peer_heartbeats)");
            }
        }

        @Override
        public String toString() {
            return "'database.collection' (not a system.* or _tideline* collection)";
        }
    };

    /**
     * What validate() reports beyond the per-key checks, on the key at fault: in peer mode, the stamp key and the
     * heartbeat namespace are required (without heartbeats a dead link cannot be told from a quiet one), and ONE
     * task (two tasks would race on the same document's tombstone).
     */
    public static void check(java.util.Map<String, String> props, java.util.Map<String, org.apache.kafka.common.config.ConfigValue> values) {
        if (props.getOrDefault(CLUSTER_ID, "").isBlank()) {
            return;
        }
        String missingKey = PeerKeySettings.missing(props, CLUSTER_ID);
        if (missingKey != null && values.containsKey(PeerKeySettings.KEY)) {
            values.get(PeerKeySettings.KEY).addErrorMessage(missingKey);
        }
        if (props.getOrDefault(HEARTBEAT_NAMESPACE, "").isBlank() && values.containsKey(HEARTBEAT_NAMESPACE)) {
            values.get(HEARTBEAT_NAMESPACE).addErrorMessage(HEARTBEAT_NAMESPACE + " is required when " + CLUSTER_ID + " is set: "
                    + "the heartbeats crossing the link are how a dead link (a stopped source, an unreachable broker, a peer "
                    + "sink that does not run) is told from a quiet one; use the same namespace on every cluster, captured by "
                    + "the sources (e.g. app.tideline_peer_heartbeats)");
        }
        String dlq = dlqMissing(props);
        if (dlq != null && values.containsKey(CLUSTER_ID)) {
            values.get(CLUSTER_ID).addErrorMessage(dlq);
        }
        String tasks = props.getOrDefault("tasks.max", "1").trim();
        if (!tasks.equals("1") && values.containsKey(CLUSTER_ID)) {
            values.get(CLUSTER_ID).addErrorMessage("peer mode runs ONE task per sink connector (tasks.max is " + tasks
                    + "): two tasks would write the same document and its tombstone concurrently; set tasks.max=1");
        }
    }

    /**
     * The error when peer mode would lose a record it refuses (no errors.tolerance=all, or no dead letter queue); null
     * when fine.
     */
    public static String dlqMissing(java.util.Map<String, String> props) {
        boolean tolerant = "all".equalsIgnoreCase(props.getOrDefault(SinkConfig.ERRORS_TOLERANCE, "none").trim());
        boolean dlq = !props.getOrDefault(ERRORS_DLQ_TOPIC, "").isBlank();
        return tolerant && dlq ? null : "peer mode sends a record it must not apply (no valid MAC, malformed, refused by the "
                + "record safety settings) to the dead letter queue and goes on: set " + SinkConfig.ERRORS_TOLERANCE + "=all and "
                + ERRORS_DLQ_TOPIC + " (a record refused without them would stop the task, or be lost)";
    }

    public boolean enabled() {
        return clusterId.isPresent();
    }

    /** This cluster's id; empty: the normal sink. */
    public Optional<String> clusterId() {
        return clusterId;
    }

    public long tombstoneTtlMs() {
        return tombstoneTtlMs;
    }

    public String statusDatabase() {
        return statusDatabase;
    }

    public long lagDegradedMs() {
        return lagDegradedMs;
    }

    /** The tenants this direction of the link applies; empty: every tenant. */
    public List<String> tenants() {
        return tenants;
    }

    public Optional<String> heartbeatNamespace() {
        return heartbeatNamespace;
    }

    public long heartbeatIntervalMs() {
        return heartbeatIntervalMs;
    }

    /** The link's stamp keys, or null when peer.stamp.key is not set. */
    public StampKeys keys() {
        return keys;
    }

    public long clockMaxAheadMs() {
        return clockMaxAheadMs;
    }

    /** {@link #UNSIGNED_BEFORE} in epoch seconds; 0 when unset (no unsigned stamp is trusted). */
    public long unsignedBeforeSeconds() {
        return unsignedBeforeSeconds;
    }
}
