package dev.tideline.sign;

import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * A pair of key settings for one {@link KeyRing}: the key and, during a rotation, the key it replaces. Both are
 * PASSWORDs, so Connect masks them in REST answers and logs, and a value may come from a config provider
 * ({@code ${file:...}}); a key is empty (off) or at least {@value #MIN_LENGTH} characters.
 *
 * @param key         the setting of the current key
 * @param previousKey the setting of the key it replaces
 * @param keyIdLabel  what the fingerprints of this purpose's keys are made of ({@link KeyRing})
 */
public record KeySettings(String key, String previousKey, String keyIdLabel) {
    public static final int MIN_LENGTH = 32;

    /**
     * Defines both settings; the documentation of the previous key is written here from {@code rotated}, what
     * still verifies with it, and {@code keepWhile}, how long to keep it.
     *
     * @return the last order number used in {@code group}
     */
    public int define(ConfigDef def, String group, int order, Importance importance, String keyDoc, String rotated,
                      String keepWhile, String displayName) {
        def.define(key, Type.PASSWORD, "", LONG_ENOUGH, importance, keyDoc + " At least " + MIN_LENGTH + " characters (e.g. "
                        + "the output of 'openssl rand -base64 32'); keep it out of connector configs with a config provider "
                        + "(${file:...}). Rotation: see " + previousKey + ".",
                group, ++order, Width.LONG, displayName);
        def.define(previousKey, Type.PASSWORD, "", LONG_ENOUGH, Importance.LOW,
                "During a rotation of " + key + ", the key it replaces: " + rotated + " made with it still verify, new ones "
                        + "are made with " + key + ". MACs name their key by a fingerprint, so the connectors can be "
                        + "reconfigured one by one. Keep it " + keepWhile + ". Empty (default): none.",
                group, ++order, Width.LONG, "Previous " + displayName.toLowerCase(java.util.Locale.ROOT));
        return order;
    }

    /** The keys; null when {@link #key} is empty. */
    public KeyRing ring(AbstractConfig c) {
        String current = c.getPassword(key).value();
        return current.isEmpty() ? null : new KeyRing(current, c.getPassword(previousKey).value(), keyIdLabel);
    }

    /** Whether the raw connector settings set the key. */
    public boolean isSet(Map<String, String> props) {
        return !props.getOrDefault(key, "").isEmpty();
    }

    private static final ConfigDef.Validator LONG_ENOUGH = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            String s = value instanceof Password p ? p.value() : value == null ? "" : value.toString();
            if (!s.isEmpty() && s.length() < MIN_LENGTH) {
                throw new ConfigException(name, "[hidden]", "a key must be at least " + MIN_LENGTH
                        + " characters (e.g. 'openssl rand -base64 32'), or empty");
            }
        }

        @Override
        public String toString() {
            return "empty, or at least " + MIN_LENGTH + " characters";
        }
    };
}
