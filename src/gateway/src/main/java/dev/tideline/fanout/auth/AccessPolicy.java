package dev.tideline.fanout.auth;

import dev.tideline.fanout.channel.ChannelName;

/**
 * Whether a token may read a channel. A pattern is {@code <db>.<coll>.<tenant>} where db and coll
 * may each be {@code *} (any value); the tenant is never a wildcard and must be the token's own.
 * A channel of another tenant is refused whatever the patterns say, so a badly issued token
 * cannot cross tenants either.
 */
public final class AccessPolicy {
    private static final String ANY = "*";

    private AccessPolicy() {
    }

    public static boolean allows(TokenClaims claims, ChannelName channel) {
        if (!claims.tenant().equals(channel.tenant())) {
            return false;
        }
        for (String pattern : claims.channelPatterns()) {
            if (matches(pattern, channel, claims.tenant())) {
                return true;
            }
        }
        return false;
    }

    static boolean matches(String pattern, ChannelName channel, String tenant) {
        int first = pattern.indexOf('.');
        int last = pattern.lastIndexOf('.');
        if (first <= 0 || last <= first) {
            return false;
        }
        String db = pattern.substring(0, first);
        String coll = pattern.substring(first + 1, last);
        String patternTenant = pattern.substring(last + 1);
        if (!patternTenant.equals(tenant)) {
            return false;
        }
        return (ANY.equals(db) || db.equals(channel.db()))
                && (ANY.equals(coll) || coll.equals(channel.collection()));
    }
}
