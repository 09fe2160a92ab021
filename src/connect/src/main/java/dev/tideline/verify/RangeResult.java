package dev.tideline.verify;

/**
 * What one pass found in one {@code _id} range: documents on each side, and how many ids differed at
 * that first look (before re-checks).
 */
public record RangeResult(IdRange range, long sourceDocuments, long destinationDocuments, long missing, long extra,
                          long different) {
    public boolean differs() {
        return missing + extra + different > 0 || sourceDocuments != destinationDocuments;
    }
}
