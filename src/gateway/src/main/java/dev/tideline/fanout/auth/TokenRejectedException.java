package dev.tideline.fanout.auth;

/** A token the gateway does not accept; {@link #reason()} is a short machine-readable word sent to the client. */
public final class TokenRejectedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String reason;

    public TokenRejectedException(String reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** e.g. {@code bad-signature}, {@code bad-alg}, {@code expired}, {@code not-yet-valid}, {@code malformed}. */
    public String reason() {
        return reason;
    }
}
