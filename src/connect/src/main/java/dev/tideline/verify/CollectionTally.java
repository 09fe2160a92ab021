package dev.tideline.verify;

/** The counts of one collection while it is being verified (one thread at a time). */
public final class CollectionTally {
    private final CollectionPair collection;
    private final long startedMs;
    private String hashing = "client";
    private long sourceDocuments;
    private long destinationDocuments;
    private long ranges;
    private long rangesDiffering;
    private long candidates;
    private long missing;
    private long extra;
    private long different;
    private long inFlight;
    private long fieldOrderOnly;
    private long settled;
    private long finishedMs = -1;
    private String error;

    public CollectionTally(CollectionPair collection, long startedMs) {
        this.collection = collection;
        this.startedMs = startedMs;
    }

    public CollectionPair collection() {
        return collection;
    }

    public void hashing(String how) {
        this.hashing = how;
    }

    public void range(RangeResult r) {
        ranges++;
        sourceDocuments += r.sourceDocuments();
        destinationDocuments += r.destinationDocuments();
        if (r.differs()) {
            rangesDiffering++;
        }
    }

    public void candidate() {
        candidates++;
    }

    /** A re-check's final word on one candidate. */
    public void finding(FindingKind kind) {
        switch (kind) {
            case MISSING -> missing++;
            case EXTRA -> extra++;
            case DIFFERENT -> different++;
            case IN_FLIGHT -> inFlight++;
        }
    }

    /** A different document that differs in field order only (counted as different too). */
    public void fieldOrderOnly() {
        fieldOrderOnly++;
    }

    public void settled() {
        settled++;
    }

    public void passDone(long nowMs) {
        finishedMs = nowMs;
    }

    public void failed(String why) {
        this.error = why;
    }

    public boolean hasFailed() {
        return error != null;
    }

    /** Restarts the pass's counts (the collection is walked again from the start, e.g. by another hashing). */
    public void resetPass() {
        sourceDocuments = destinationDocuments = ranges = rangesDiffering = candidates = 0;
    }

    public long candidates() {
        return candidates;
    }

    public long documents() {
        return sourceDocuments + destinationDocuments;
    }

    public CollectionSummary summary() {
        long millis = (finishedMs < 0 ? System.currentTimeMillis() : finishedMs) - startedMs;
        return new CollectionSummary(collection, hashing, sourceDocuments, destinationDocuments, ranges, rangesDiffering,
                candidates, missing, extra, different, inFlight, settled, millis, error, fieldOrderOnly);
    }
}
