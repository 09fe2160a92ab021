package dev.tideline.verify;

/**
 * What verify found in one collection.
 *
 * @param fieldOrderOnly   of the {@code different}, those whose versions hold the same fields and values in another order
 *                         ({@link Finding#FIELD_ORDER_ONLY})
 * @param hashing          {@code server} (range hashes computed by both servers) or {@code client} (documents read and compared here)
 * @param candidates       ids that differed at the first look, before re-checks
 * @param settled          candidates found equal on a re-check (writes that were in flight)
 * @param error            why the collection could not be compared completely; null when it was
 */
public record CollectionSummary(CollectionPair collection, String hashing, long sourceDocuments, long destinationDocuments,
                                long ranges, long rangesDiffering, long candidates, long missing, long extra, long different,
                                long inFlight, long settled, long millis, String error, long fieldOrderOnly) {

    public CollectionSummary(CollectionPair collection, String hashing, long sourceDocuments, long destinationDocuments,
                             long ranges, long rangesDiffering, long candidates, long missing, long extra, long different,
                             long inFlight, long settled, long millis, String error) {
        this(collection, hashing, sourceDocuments, destinationDocuments, ranges, rangesDiffering, candidates, missing, extra,
                different, inFlight, settled, millis, error, 0);
    }

    public Outcome outcome() {
        if (error != null) {
            return Outcome.FAILED;
        }
        if (missing + extra + different > 0) {
            return Outcome.DIFFERS;
        }
        return inFlight > 0 ? Outcome.UNSETTLED : Outcome.EQUAL;
    }

    /** One line for people after the first look, before re-checks. */
    public String describePass() {
        String s = String.format("%s: %,d source / %,d destination documents, %,d of %,d ranges differ, %,d ids differ at first look "
                + "[%s hashing, %.1f s]", collection, sourceDocuments, destinationDocuments, rangesDiffering, ranges, candidates,
                hashing, millis / 1000.0);
        return error == null ? s : s + "; FAILED: " + error;
    }

    /** One line for people: counts, then what differs. */
    public String describe() {
        StringBuilder s = new StringBuilder(collection.toString()).append(": ")
                .append(String.format("%,d source / %,d destination documents", sourceDocuments, destinationDocuments));
        if (error != null) {
            return s.append("; FAILED: ").append(error).toString();
        }
        s.append(String.format("; %,d missing, %,d extra, %,d different, %,d in flight (%,d settled on re-check)",
                missing, extra, different, inFlight, settled));
        if (fieldOrderOnly > 0) {
            s.append(String.format("; %,d of the different in field order only (%s)", fieldOrderOnly, Finding.FIELD_ORDER_ONLY));
        }
        return s.append(String.format(" [%s hashing, %.1f s]", hashing, millis / 1000.0)).toString();
    }
}
