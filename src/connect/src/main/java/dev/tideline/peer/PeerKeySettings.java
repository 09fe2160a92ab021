package dev.tideline.peer;

import dev.tideline.sign.KeySettings;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;

/**
 * The link's stamp key settings, the same on the peer source and the peer sink ({@link StampKeys}); the setting
 * machinery (secrets, rotation, minimum length) is {@link KeySettings}', shared with signed change records.
 */
public final class PeerKeySettings {
    public static final String KEY = "peer.stamp.key";
    public static final String PREVIOUS_KEY = "peer.stamp.key.previous";
    public static final int MIN_LENGTH = KeySettings.MIN_LENGTH;
    private static final KeySettings SETTINGS = new KeySettings(KEY, PREVIOUS_KEY, StampKeys.KEY_ID_LABEL);

    private PeerKeySettings() {
    }

    public static int define(ConfigDef def, String group, int order) {
        return SETTINGS.define(def, group, order, Importance.HIGH,
                "Secret shared by every peer source and peer sink of the link (the same value on all of them); required "
                        + "when peer.cluster.id is set. Every '_tl' stamp, tombstone and delete record carries an HMAC made "
                        + "with it, so an application that writes the documents cannot make its write look like a peer's "
                        + "(which the peers would skip as an echo) or copy a stamp from another cluster or document.",
                "stamps and records", "while documents may still carry stamps made with it (see docs/peer-replication.md)",
                "Stamp key");
    }

    /** The keys; null when peer.stamp.key is empty. */
    public static StampKeys keys(AbstractConfig c) {
        var ring = SETTINGS.ring(c);
        return ring == null ? null : new StampKeys(ring);
    }

    /**
     * The error to report on {@link #KEY} when peer mode is on without a key; null when fine.
     *
     * @param props the raw connector settings
     */
    public static String missing(Map<String, String> props, String clusterIdKey) {
        boolean peer = !props.getOrDefault(clusterIdKey, "").isBlank();
        return peer && !SETTINGS.isSet(props) ? KEY + " is required when " + clusterIdKey + " is set: set the same secret (at least "
                + MIN_LENGTH + " characters) on every peer source and peer sink of the link, so that stamps cannot be forged" : null;
    }
}
