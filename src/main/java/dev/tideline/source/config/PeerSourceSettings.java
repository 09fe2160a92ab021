package dev.tideline.source.config;

import dev.tideline.peer.ClusterId;
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

    PeerSourceSettings(AbstractConfig c) {
        String id = c.getString(CLUSTER_ID).trim();
        clusterId = id.isEmpty() ? Optional.empty() : Optional.of(id);
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
    }

    public Optional<String> clusterId() {
        return clusterId;
    }
}
