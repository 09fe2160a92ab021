package dev.tideline.source.config;

import dev.tideline.peer.ClusterId;
import dev.tideline.peer.PeerKeySettings;
import dev.tideline.peer.StampKeys;
import org.apache.kafka.common.config.ConfigException;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** Peer (active-active) replication: this cluster's id turns the source's peer mode on. */
public final class PeerSourceSettings {
    public static final String GROUP = "Peer replication";
    public static final String CLUSTER_ID = "peer.cluster.id";

    private final Optional<String> clusterId;
    private final StampKeys keys;

    PeerSourceSettings(AbstractConfig c) {
        String id = c.getString(CLUSTER_ID).trim();
        clusterId = id.isEmpty() ? Optional.empty() : Optional.of(id);
        keys = PeerKeySettings.keys(c);
        if (clusterId.isPresent() && keys == null) {
            throw new ConfigException(PeerKeySettings.KEY + " is required when " + CLUSTER_ID + " is set: set the same secret on "
                    + "every peer source and peer sink of the link");
        }
    }

    static void define(ConfigDef def) {
        def.define(CLUSTER_ID, Type.STRING, "", ClusterId.validator(), Importance.MEDIUM,
                "Id of the cluster this source reads, for peer (active-active) replication; empty (default): peer mode "
                        + "off. When set, every change carries its origin cluster (envelope 'origin', headers tl.origin, "
                        + "tl.origin.version, tl.cluster): a document whose '_tl' stamp matches its content was written by "
                        + "a peer sink and keeps the stamp's origin, anything else is a local write, emitted with a '_tl' "
                        + "stamp of this cluster. Must equal peer.cluster.id of this cluster's peer sink. "
                        + "See docs/peer-replication.md.",
                GROUP, 1, Width.SHORT, "Cluster id");
        PeerKeySettings.define(def, GROUP, 1);
    }

    /** What validate() reports beyond the per-key checks: peer mode without a stamp key, on that key. */
    public static void check(java.util.Map<String, String> props, org.apache.kafka.common.config.Config result) {
        String missing = PeerKeySettings.missing(props, CLUSTER_ID);
        if (missing != null) {
            result.configValues().stream().filter(v -> v.name().equals(PeerKeySettings.KEY)).findFirst()
                    .ifPresent(v -> v.addErrorMessage(missing));
        }
    }

    public Optional<String> clusterId() {
        return clusterId;
    }

    /** The link's stamp keys; present whenever {@link #clusterId()} is. */
    public StampKeys keys() {
        return keys;
    }
}
