package dev.tideline.peer;

import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The link's stamp key settings, the same on the peer source and the peer sink ({@link StampKeys}): a
 * PASSWORD, so Connect masks it in REST answers and logs, and a value may come from a config provider
 * ({@code ${file:...}}).
 */
public final class PeerKeySettings {
    public static final String KEY = "peer.stamp.key";
    public static final String PREVIOUS_KEY = "peer.stamp.key.previous";
    public static final int MIN_LENGTH = 32;

    private PeerKeySettings() {
    }

    public static int define(ConfigDef def, String group, int order) {
        def.define(KEY, Type.PASSWORD, "", LONG_ENOUGH, Importance.HIGH,
                "Secret shared by every peer source and peer sink of the link (the same value on all of them), at least "
                        + MIN_LENGTH + " characters (e.g. the output of 'openssl rand -base64 32'); required when "
                        + "peer.cluster.id is set. Every '_tl' stamp, tombstone and delete record carries an HMAC made with "
                        + "it, so an application that writes the documents cannot make its write look like a peer's (which "
                        + "the peers would skip as an echo) or copy a stamp from another cluster or document. Keep it out of "
                        + "connector configs with a config provider (${file:...}). Rotation: see peer.stamp.key.previous.",
                group, ++order, Width.LONG, "Stamp key");
        def.define(PREVIOUS_KEY, Type.PASSWORD, "", LONG_ENOUGH, Importance.LOW,
                "During a rotation of peer.stamp.key, the key it replaces: stamps and records made with it still "
                        + "verify, new ones are made with peer.stamp.key. Stamps name their key by a fingerprint, so the "
                        + "connectors of the link can be reconfigured one by one. Keep it while documents may still carry "
                        + "stamps made with it (see docs/peer-replication.md); empty (default): none.",
                group, ++order, Width.LONG, "Previous stamp key");
        return order;
    }

    private static final ConfigDef.Validator LONG_ENOUGH = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            String s = value instanceof Password p ? p.value() : value == null ? "" : value.toString();
            if (!s.isEmpty() && s.length() < MIN_LENGTH) {
                throw new ConfigException(name, "[hidden]", "a stamp key must be at least " + MIN_LENGTH
                        + " characters (e.g. 'openssl rand -base64 32'), or empty");
            }
        }

        @Override
        public String toString() {
            return "empty, or at least " + MIN_LENGTH + " characters";
        }
    };

    /** The keys; null when peer.stamp.key is empty. */
    public static StampKeys keys(AbstractConfig c) {
        String current = c.getPassword(KEY).value();
        return current.isEmpty() ? null : new StampKeys(current, c.getPassword(PREVIOUS_KEY).value());
    }

    /**
     * The error to report on {@link #KEY} when peer mode is on without a key; null when fine.
     *
     * @param props the raw connector settings
     */
    public static String missing(Map<String, String> props, String clusterIdKey) {
        boolean peer = !props.getOrDefault(clusterIdKey, "").isBlank();
        boolean keyed = !props.getOrDefault(KEY, "").isEmpty();
        return peer && !keyed ? KEY + " is required when " + clusterIdKey + " is set: set the same secret (at least " + MIN_LENGTH
                + " characters) on every peer source and peer sink of the link, so that stamps cannot be forged" : null;
    }
}
