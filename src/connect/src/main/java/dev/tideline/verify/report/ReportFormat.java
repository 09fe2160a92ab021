package dev.tideline.verify.report;

import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.CollectionSummary;
import dev.tideline.verify.Finding;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.Outcome;
import dev.tideline.verify.RangeResult;
import java.time.Instant;
import java.util.List;

/**
 * The report's lines (JSON Lines, one object per line, {@code "format": 1}); docs/verify.md documents
 * each field. Stable: fields may be added, none is renamed or removed without a new format number.
 * Ids and range bounds are canonical Extended JSON, so a repair reads back the exact BSON id.
 */
public final class ReportFormat {
    public static final int FORMAT = 1;
    public static final String VERIFY = "verify";
    public static final String RANGE = "range";
    public static final String COLLECTION = "collection";
    public static final String SUMMARY = "summary";

    private ReportFormat() {
    }

    /** The first line: what was compared, and how. */
    public static ReportLine header(RunDescription run) {
        return new ReportLine(VERIFY, null, JsonLine.of(VERIFY).number("format", FORMAT)
                .text("startedAt", run.startedAt().toString())
                .text("source", run.source()).text("destination", run.destination()).bool("peers", run.peers())
                .text("comparison", run.comparison()).text("hashing", run.hashing())
                .number("rangeSize", run.rangeSize()).number("rechecks", run.rechecks())
                .number("recheckDelayMillis", run.recheckDelayMillis()).end());
    }

    /** A range that differed at the first look: a repair can re-copy it whole. */
    public static ReportLine range(CollectionPair pair, RangeResult r) {
        JsonLine line = collection(JsonLine.of(RANGE), pair);
        // an open end is left out: a present null is a real id (one document may have _id: null)
        if (r.range().after() != null) {
            line.value("after", r.range().after());
        }
        if (r.range().upTo() != null) {
            line.value("upTo", r.range().upTo());
        }
        return new ReportLine(RANGE, pair.source().fullName(), line
                .number("sourceDocuments", r.sourceDocuments()).number("destinationDocuments", r.destinationDocuments())
                .number("missing", r.missing()).number("extra", r.extra()).number("different", r.different()).end());
    }

    /** One id: missing, extra, different, or in-flight (with how it differed at the last look). */
    public static ReportLine finding(Finding f) {
        JsonLine line = collection(JsonLine.of(f.kind().wireName()), f.collection()).value("_id", f.id());
        if (f.kind() == FindingKind.IN_FLIGHT) {
            line.text("seenAs", f.seenAs().wireName());
        }
        if (f.fieldOrderOnly()) {
            line.text("only", "field-order");
        }
        return new ReportLine(f.kind().wireName(), f.collection().source().fullName(), line.end());
    }

    public static ReportLine collection(CollectionSummary c) {
        return new ReportLine(COLLECTION, c.collection().source().fullName(), collection(JsonLine.of(COLLECTION), c.collection())
                .text("outcome", c.outcome().wireName()).text("hashing", c.hashing())
                .number("sourceDocuments", c.sourceDocuments()).number("destinationDocuments", c.destinationDocuments())
                .number("ranges", c.ranges()).number("rangesDiffering", c.rangesDiffering()).number("candidates", c.candidates())
                .number("missing", c.missing()).number("extra", c.extra()).number("different", c.different())
                .number("differentInFieldOrderOnly", c.fieldOrderOnly())
                .number("inFlight", c.inFlight()).number("settled", c.settled()).number("millis", c.millis())
                .text("error", c.error()).end());
    }

    /** The last line: the verdict over every collection. */
    /** @param failure why the whole run stopped early; null when it ran to the end */
    public static ReportLine summary(List<CollectionSummary> collections, Outcome outcome, long millis, Instant finishedAt,
                                     String failure) {
        long documents = 0;
        long missing = 0;
        long extra = 0;
        long different = 0;
        long inFlight = 0;
        long settled = 0;
        long failed = 0;
        for (CollectionSummary c : collections) {
            documents += c.sourceDocuments() + c.destinationDocuments();
            missing += c.missing();
            extra += c.extra();
            different += c.different();
            inFlight += c.inFlight();
            settled += c.settled();
            failed += c.error() == null ? 0 : 1;
        }
        return new ReportLine(SUMMARY, null, JsonLine.of(SUMMARY).text("outcome", outcome.wireName())
                .number("exitCode", outcome.exitCode()).number("collections", collections.size()).number("failedCollections", failed)
                .number("documents", documents).number("missing", missing).number("extra", extra).number("different", different)
                .number("inFlight", inFlight).number("settled", settled).number("millis", millis)
                .decimal("documentsPerSecond", millis == 0 ? Double.NaN : documents * 1000.0 / millis)
                .text("finishedAt", finishedAt.toString()).text("failure", failure).end());
    }

    private static JsonLine collection(JsonLine line, CollectionPair pair) {
        return line.text("ns", pair.source().fullName()).text("to", pair.destination().fullName());
    }

    /**
     * What the header says about a run.
     *
     * @param source      the source's hosts (never credentials)
     * @param comparison  {@link dev.tideline.verify.DocumentComparison#describe()}
     * @param hashing     the requested hashing: auto, server or client
     */
    public record RunDescription(Instant startedAt, String source, String destination, boolean peers, String comparison,
                                 String hashing, int rangeSize, int rechecks, long recheckDelayMillis) {
    }
}
