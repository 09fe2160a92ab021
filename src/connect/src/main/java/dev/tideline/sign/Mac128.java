package dev.tideline.sign;

/**
 * A MAC made by a {@link KeyRing} (128 bits of an HMAC-SHA256, 32 hex characters) and the fingerprint of the key
 * that made it ({@link KeyRing#keyId()}), so that a verifier holding a current and a previous key knows which to use.
 */
public record Mac128(String keyId, String mac) {
    private static final char SEPARATOR = ':';

    /** {@code keyId:mac}, the form carried in a header. */
    public String text() {
        return keyId + SEPARATOR + mac;
    }

    /** The MAC a header carries ({@link #text()}); null when the text is absent or not in that form. */
    public static Mac128 parse(String text) {
        int colon = text == null ? -1 : text.indexOf(SEPARATOR);
        return colon <= 0 ? null : new Mac128(text.substring(0, colon), text.substring(colon + 1));
    }
}
