package dev.tideline.event;

import java.util.Locale;

/** What happened to a document. {@code READ} is a copy made by a backfill or a date scan. */
public enum Op {
    INSERT, UPDATE, REPLACE, DELETE, READ;

    /** The name on the wire (envelope field and header): lower case. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws MalformedRecordException when the name is not one of ours */
    public static Op fromWireName(String name) {
        if (name != null) {
            for (Op op : values()) {
                if (op.wireName().equals(name)) {
                    return op;
                }
            }
        }
        throw new MalformedRecordException("unknown op '" + name + "': expected one of insert, update, replace, delete, read");
    }

    /** True for the ops that carry the whole document after the change. */
    public boolean carriesDocument() {
        return this != DELETE;
    }
}
