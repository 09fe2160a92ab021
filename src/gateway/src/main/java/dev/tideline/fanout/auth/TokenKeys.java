package dev.tideline.fanout.auth;

/**
 * The gateway's two keys: subscriber tokens and operator tokens are signed with different secrets,
 * so a backend that issues subscriber tokens cannot make an operator token, and a leaked subscriber
 * key opens no operator endpoint. Without an operator key no operator token is accepted.
 */
public final class TokenKeys {
    private final JwtVerifier subscribers;
    private final JwtVerifier operators;

    /** @param operators null when no operator key is configured */
    public TokenKeys(JwtVerifier subscribers, JwtVerifier operators) {
        this.subscribers = subscribers;
        this.operators = operators;
    }

    public JwtVerifier subscribers() {
        return subscribers;
    }

    /** Checks an operator token (role admin, signed with the operator key). */
    public void verifyOperator(String token, long nowMillis) throws TokenRejectedException {
        if (operators == null) {
            throw new TokenRejectedException("no-operator-key", "no operator key is configured (auth.admin.hmac.secret or "
                    + "FANOUT_ADMIN_HMAC_SECRET): operator endpoints accept no token");
        }
        operators.verifyAdmin(token, nowMillis);
    }

    /** An operator token; fails when no operator key is configured. */
    public String issueOperator(long expiresAtSeconds) {
        if (operators == null) {
            throw new IllegalStateException("no operator key is configured: set auth.admin.hmac.secret or FANOUT_ADMIN_HMAC_SECRET");
        }
        return operators.issueAdmin(expiresAtSeconds);
    }
}
