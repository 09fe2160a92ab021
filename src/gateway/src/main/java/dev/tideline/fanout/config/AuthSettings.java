package dev.tideline.fanout.config;

import dev.tideline.fanout.auth.JwtVerifier;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** The keys subscriber and operator tokens are signed with, and how long a token may live. */
public final class AuthSettings {
    static final String GROUP = "Tokens";
    public static final String SECRET = "auth.hmac.secret";
    public static final String ADMIN_SECRET = "auth.admin.hmac.secret";
    public static final String LEEWAY_MS = "auth.leeway.ms";
    public static final String MAX_LIFETIME_MS = "auth.token.max.lifetime.ms";
    /** Environment variables that win over the two keys (./gateway reads them), so a secret need not be written down. */
    public static final String SECRET_ENV = "FANOUT_HMAC_SECRET";
    public static final String ADMIN_SECRET_ENV = "FANOUT_ADMIN_HMAC_SECRET";
    /** What config/fanout-gateway.properties holds: a placeholder the gateway refuses. */
    public static final String SHIPPED_PLACEHOLDER = "CHANGE-ME-set-FANOUT_HMAC_SECRET-or-this-line";
    /** The example secret earlier versions shipped, refused as well: it is public. */
    static final String FORMER_SHIPPED = "change-me-change-me-change-me-change-me-0123456789";

    private static final ConfigDef.Validator STRONG_SECRET = strongSecret(true);
    private static final ConfigDef.Validator STRONG_OR_NO_SECRET = strongSecret(false);

    private static ConfigDef.Validator strongSecret(boolean required) {
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                String env = name.equals(ADMIN_SECRET) ? ADMIN_SECRET_ENV : SECRET_ENV;
                if (value == null) {
                    if (required) {
                        throw new ConfigException(name, null, "set an HMAC secret of at least 32 bytes (" + env + " or "
                                + name + "), e.g. from `openssl rand -base64 48`");
                    }
                    return;
                }
                String secret = ((Password) value).value();
                if (secret.equals(FORMER_SHIPPED) || secret.toLowerCase(Locale.ROOT).contains("change-me")) {
                    throw new ConfigException(name, "(hidden)", "this is the example value shipped with the gateway, which anyone "
                            + "can read: set your own secret in " + env + " or " + name + ", e.g. from `openssl rand -base64 48`");
                }
                if (secret.getBytes(StandardCharsets.UTF_8).length < 32) {
                    throw new ConfigException(name, "(hidden)", "the HMAC secret must be at least 32 bytes: generate one with "
                            + "`openssl rand -base64 48`");
                }
            }

            @Override
            public String toString() {
                return (required ? "" : "unset, or ") + "at least 32 bytes, not the shipped example";
            }
        };
    }

    private final byte[] secret;
    private final byte[] adminSecret;
    private final long leewayMs;
    private final long maxLifetimeMs;

    AuthSettings(AbstractConfig c) {
        secret = c.getPassword(SECRET).value().getBytes(StandardCharsets.UTF_8);
        Password admin = c.getPassword(ADMIN_SECRET);
        adminSecret = admin == null ? null : admin.value().getBytes(StandardCharsets.UTF_8);
        if (adminSecret != null && java.security.MessageDigest.isEqual(secret, adminSecret)) {
            throw new ConfigException(ADMIN_SECRET, "(hidden)", "the operator key must differ from " + SECRET
                    + " (the subscriber key), or whoever issues subscriber tokens can make operator tokens");
        }
        leewayMs = c.getLong(LEEWAY_MS);
        maxLifetimeMs = c.getLong(MAX_LIFETIME_MS);
    }

    static void define(ConfigDef def) {
        int o = 0;
        def.define(SECRET, Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE, STRONG_SECRET, Importance.HIGH,
                "Shared HMAC-SHA256 key (at least 32 bytes) that subscriber tokens are signed with (the environment variable "
                        + "FANOUT_HMAC_SECRET wins); the placeholder shipped in config/fanout-gateway.properties is refused. "
                        + "Subscriber tokens are HS256 JWTs with claims tenant, channels (patterns <db>.<coll>.<tenant>, db and "
                        + "coll may be *) and exp.", GROUP, ++o, Width.LONG, "Subscriber HMAC secret");
        def.define(ADMIN_SECRET, Type.PASSWORD, null, STRONG_OR_NO_SECRET, Importance.HIGH,
                "A second HMAC-SHA256 key (at least 32 bytes, not the subscriber key) that operator tokens (role=admin and "
                        + "exp; ./gateway token --admin) are signed with, for /stats and the details of /health; the "
                        + "environment variable FANOUT_ADMIN_HMAC_SECRET wins. Unset: no operator token is accepted "
                        + "(/stats answers 401 no-operator-key, /health shows its status only).",
                GROUP, ++o, Width.LONG, "Operator HMAC secret");
        def.define(LEEWAY_MS, Type.LONG, 0L, ConfigDef.Range.between(0, 300_000), Importance.LOW,
                "Clock skew tolerated on exp and nbf.", GROUP, ++o, Width.SHORT, "Clock leeway");
        def.define(MAX_LIFETIME_MS, Type.LONG, JwtVerifier.DEFAULT_MAX_LIFETIME_MILLIS, ConfigDef.Range.between(60_000, 2_592_000_000L),
                Importance.MEDIUM, "Longest a token may live: a token whose exp is further ahead than this (or that has no exp) "
                        + "is refused (401 lifetime-too-long), so a leaked token is good for this long at most; a connection "
                        + "closes when its token expires (token-expired) and the client comes back with a fresh one.",
                GROUP, ++o, Width.SHORT, "Token lifetime cap");
    }

    public byte[] secret() {
        return secret.clone();
    }

    /** The operator key, or null when none is configured. */
    public byte[] adminSecret() {
        return adminSecret == null ? null : adminSecret.clone();
    }

    public long maxLifetimeMs() {
        return maxLifetimeMs;
    }

    public long leewayMs() {
        return leewayMs;
    }
}
