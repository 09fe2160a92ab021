package dev.tideline.verify;

/** What a run tells its host while it goes: the command prints it, the connector logs it. */
public interface VerifyListener {
    /** Something worth a line: a fallback to client hashing, a retry, a re-check round. */
    void note(String message);

    /** Every few seconds while a collection is being walked. */
    default void progress(CollectionPair collection, long documents, long candidates) {
    }

    /** A collection's first look is done (re-checks come later, for all collections together). */
    default void passed(CollectionSummary collection) {
    }

    VerifyListener SILENT = message -> { };
}
