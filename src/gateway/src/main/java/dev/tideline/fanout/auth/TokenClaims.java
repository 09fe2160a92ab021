package dev.tideline.fanout.auth;

import java.util.List;

/**
 * What a verified token grants: one tenant, and channel patterns within it.
 *
 * @param subject         who the token was issued to ({@code sub}), for logs; may be null
 * @param tenant          the only tenant whose channels this token may read
 * @param channelPatterns {@code <db>.<coll>.<tenant>} patterns where db and coll may be {@code *}
 * @param expiresAtMillis {@code exp}, epoch millis
 */
public record TokenClaims(String subject, String tenant, List<String> channelPatterns, long expiresAtMillis) {
    public TokenClaims {
        channelPatterns = List.copyOf(channelPatterns);
    }
}
