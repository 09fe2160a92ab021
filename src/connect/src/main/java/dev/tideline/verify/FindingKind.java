package dev.tideline.verify;

/** What verify says about one {@code _id}; the names are the report's {@code type} values. */
public enum FindingKind {
    /** At the source, not at the destination. */
    MISSING("missing"),
    /** At the destination, not at the source. */
    EXTRA("extra"),
    /** On both sides, with different content. */
    DIFFERENT("different"),
    /** Still changing at the last re-check: a write was in flight; neither proven equal nor proven different. */
    IN_FLIGHT("in-flight");

    private final String wireName;

    FindingKind(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static FindingKind fromWireName(String name) {
        for (FindingKind k : values()) {
            if (k.wireName.equals(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown finding type '" + name + "'");
    }
}
