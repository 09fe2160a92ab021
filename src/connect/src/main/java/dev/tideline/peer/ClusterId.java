package dev.tideline.peer;

import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** A cluster id: 1 to 32 letters, digits, '-' or '_'. It is written into every replicated document's stamp. */
public final class ClusterId {
    private static final Pattern SHAPE = Pattern.compile("[A-Za-z0-9_-]{1,32}");

    private ClusterId() {
    }

    /** Empty is allowed (peer mode off); anything else must have the shape. */
    public static ConfigDef.Validator validator() {
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                String s = value == null ? "" : value.toString().trim();
                if (!s.isEmpty() && !SHAPE.matcher(s).matches()) {
                    throw new ConfigException(name, value, "a cluster id is 1 to 32 letters, digits, '-' or '_' "
                            + "(e.g. 'eu-west'); it must be the same in the source and the peer sink of one cluster");
                }
            }

            @Override
            public String toString() {
                return "empty, or 1-32 of [A-Za-z0-9_-]";
            }
        };
    }
}
