package dev.tideline.verify;

import java.util.List;

/** The outcome of one run, collection by collection. */
public record RunResult(List<CollectionSummary> collections, Outcome outcome, long millis, String failure) {
    public RunResult {
        collections = List.copyOf(collections);
    }

    public long documents() {
        return collections.stream().mapToLong(c -> c.sourceDocuments() + c.destinationDocuments()).sum();
    }

    public long count(FindingKind kind) {
        return collections.stream().mapToLong(c -> switch (kind) {
            case MISSING -> c.missing();
            case EXTRA -> c.extra();
            case DIFFERENT -> c.different();
            case IN_FLIGHT -> c.inFlight();
        }).sum();
    }

    /** One line for people. */
    public String describe() {
        String counts = String.format("%,d missing, %,d extra, %,d different, %,d in flight in %d collection(s); "
                        + "%,d documents compared in %.1f s (%,.0f docs/s)", count(FindingKind.MISSING), count(FindingKind.EXTRA),
                count(FindingKind.DIFFERENT), count(FindingKind.IN_FLIGHT), collections.size(), documents(), millis / 1000.0,
                millis == 0 ? 0.0 : documents() * 1000.0 / millis);
        return outcome.wireName().toUpperCase(java.util.Locale.ROOT) + ": " + (failure == null ? counts : failure + "; " + counts);
    }
}
