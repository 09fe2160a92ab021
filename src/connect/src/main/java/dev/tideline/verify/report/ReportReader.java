package dev.tideline.verify.report;

import dev.tideline.event.Namespace;
import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.Finding;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.IdRange;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.json.JsonParseException;

/**
 * Reads a report back, line by line (any size): what a repair feeds on. Unknown line types and
 * fields are skipped, so a reader keeps working when later formats add some.
 */
public final class ReportReader {
    /** A {@code range} line: a range that differed at the first look. */
    public record DifferingRange(CollectionPair collection, IdRange range, long sourceDocuments, long destinationDocuments) {
    }

    private ReportReader() {
    }

    /** Calls back each id line (missing, extra, different, in-flight) and each differing range, in file order. */
    public static void read(Path report, Consumer<Finding> findings, Consumer<DifferingRange> ranges) {
        try (BufferedReader in = Files.newBufferedReader(report, StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = in.readLine()) != null) {
                number++;
                if (!line.isBlank()) {
                    parse(line, number, findings, ranges);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the verify report " + report, e);
        }
    }

    static void parse(String line, int number, Consumer<Finding> findings, Consumer<DifferingRange> ranges) {
        BsonDocument d;
        try {
            d = BsonDocument.parse(line);
        } catch (JsonParseException | org.bson.BsonInvalidOperationException e) {
            throw new IllegalArgumentException("line " + number + " of the verify report is not a JSON object: " + e.getMessage(), e);
        }
        String type = d.getString("type", new org.bson.BsonString("")).getValue();
        switch (type) {
            case "missing", "extra", "different", "in-flight" -> {
                FindingKind kind = FindingKind.fromWireName(type);
                FindingKind seenAs = d.containsKey("seenAs") ? FindingKind.fromWireName(d.getString("seenAs").getValue()) : kind;
                boolean fieldOrderOnly = "field-order".equals(d.getString("only", new org.bson.BsonString("")).getValue());
                findings.accept(new Finding(kind, pair(d), d.get("_id"), seenAs, fieldOrderOnly));
            }
            case ReportFormat.RANGE -> ranges.accept(new DifferingRange(pair(d), new IdRange(d.get("after"), d.get("upTo")),
                    d.getNumber("sourceDocuments").longValue(), d.getNumber("destinationDocuments").longValue()));
            default -> {
                // verify, collection, summary, and types of later formats: not about ids
            }
        }
    }

    private static CollectionPair pair(BsonDocument d) {
        return new CollectionPair(Namespace.parse(d.getString("ns").getValue()), Namespace.parse(d.getString("to").getValue()));
    }
}
