package dev.tideline.verify;

import java.util.Locale;

/** Where range hashes are computed. */
public enum Hashing {
    /** By both servers where both can ({@link ServerHashing}); otherwise by reading documents here. */
    AUTO,
    /** By both servers; a collection whose servers cannot fails instead of being read. */
    SERVER,
    /** Here: every document of both sides is read and compared byte for byte (sees every difference). */
    CLIENT;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Hashing parse(String s) {
        for (Hashing h : values()) {
            if (h.wireName().equalsIgnoreCase(s.trim())) {
                return h;
            }
        }
        throw new IllegalArgumentException("'" + s + "' is not a hashing: use auto, server or client");
    }
}
