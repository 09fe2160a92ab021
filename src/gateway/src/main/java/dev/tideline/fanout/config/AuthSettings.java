package dev.tideline.fanout.config;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** The key subscriber and operator tokens are signed with. */
public final class AuthSettings {
    static final String GROUP = "Tokens";
    public static final String SECRET = "auth.hmac.secret";
    public static final String LEEWAY_MS = "auth.leeway.ms";
    /** What config/fanout-gateway.properties holds: a placeholder the gateway refuses. */
    public static final String SHIPPED_PLACEHOLDER = "CHANGE-ME-set-FANOUT_HMAC_SECRET-or-this-line";
    /** The example secret earlier versions shipped, refused as well: it is public. */
    static final String FORMER_SHIPPED = "change-me-change-me-change-me-change-me-0123456789";

    private static final ConfigDef.Validator STRONG_SECRET = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null) {
                throw new ConfigException(name, null, "set an HMAC secret of at least 32 bytes (FANOUT_HMAC_SECRET or "
                        + name + "), e.g. from `openssl rand -base64 48`");
            }
            String secret = ((Password) value).value();
            if (secret.equals(FORMER_SHIPPED) || secret.toLowerCase(Locale.ROOT).contains("change-me")) {
                throw new ConfigException(name, "(hidden)", "this is the example value shipped with the gateway, which anyone "
                        + "can read: set your own secret in FANOUT_HMAC_SECRET or " + name + ", e.g. from `openssl rand -base64 48`");
            }
            if (secret.getBytes(StandardCharsets.UTF_8).length < 32) {
                throw new ConfigException(name, "(hidden)", "the HMAC secret must be at least 32 bytes: generate one with "
                        + "`openssl rand -base64 48`");
            }
        }

        @Override
        public String toString() {
            return "at least 32 bytes, not the shipped example";
        }
    };

    private final byte[] secret;
    private final long leewayMs;

    AuthSettings(AbstractConfig c) {
        secret = c.getPassword(SECRET).value().getBytes(StandardCharsets.UTF_8);
        leewayMs = c.getLong(LEEWAY_MS);
    }

    static void define(ConfigDef def) {
        int o = 0;
        def.define(SECRET, Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE, STRONG_SECRET, Importance.HIGH,
                "Shared HMAC-SHA256 key (at least 32 bytes) that tokens are signed with; the placeholder shipped in "
                        + "config/fanout-gateway.properties is refused. Subscriber tokens are HS256 JWTs with claims tenant, "
                        + "channels (patterns <db>.<coll>.<tenant>, db and coll may be *) and exp; operator tokens (for "
                        + "/stats) have role=admin and exp.", GROUP, ++o, Width.LONG, "HMAC secret");
        def.define(LEEWAY_MS, Type.LONG, 0L, ConfigDef.Range.between(0, 300_000), Importance.LOW,
                "Clock skew tolerated on exp and nbf.", GROUP, ++o, Width.SHORT, "Clock leeway");
    }

    public byte[] secret() {
        return secret.clone();
    }

    public long leewayMs() {
        return leewayMs;
    }
}
