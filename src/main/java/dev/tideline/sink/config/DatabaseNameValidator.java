package dev.tideline.sink.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * {@code database} must be a name MongoDB accepts (empty means "the source database"). Caught here,
 * a typo is one config error instead of every record failing at write time.
 * Rules: https://www.mongodb.com/docs/manual/reference/limits/#naming-restrictions
 */
final class DatabaseNameValidator implements ConfigDef.Validator {
    private static final String FORBIDDEN = "/\\. \"$*<>:|?";
    private static final int MAX_BYTES = 63;

    @Override
    public void ensureValid(String name, Object value) {
        String db = value == null ? "" : ((String) value).trim();
        if (db.isEmpty()) {
            return;
        }
        for (char c : db.toCharArray()) {
            if (FORBIDDEN.indexOf(c) >= 0 || c == 0) {
                throw new ConfigException(name, value, "a database name cannot contain '" + c + "'");
            }
        }
        if (db.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_BYTES) {
            throw new ConfigException(name, value, "a database name is at most " + MAX_BYTES + " bytes");
        }
    }

    @Override
    public String toString() {
        return "a MongoDB database name, or empty for the source database";
    }
}
