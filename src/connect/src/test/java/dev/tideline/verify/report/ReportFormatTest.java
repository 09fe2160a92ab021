package dev.tideline.verify.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.event.Namespace;
import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.CollectionSummary;
import dev.tideline.verify.Finding;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.IdRange;
import dev.tideline.verify.Outcome;
import dev.tideline.verify.RangeResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonBinary;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportFormatTest {
    private static final CollectionPair PAIR = new CollectionPair(new Namespace("shop", "orders.v2"), new Namespace("replica", "orders.v2"));

    @Test
    void idsRoundTripWithTheirExactTypes(@TempDir Path dir) throws IOException {
        List<BsonValue> ids = List.of(new BsonInt32(7), new BsonInt64(7), new BsonDouble(7.0), new BsonDecimal128(Decimal128.parse("7.00")),
                new BsonString("quote\" backslash\\ newline\n tab\t é \u0001"), new BsonObjectId(new ObjectId()),
                new BsonBinary((byte) 4, new byte[] {1, 2, 3}), BsonNull.VALUE,
                new BsonDocument("tenant", new BsonString("acme")).append("n", new BsonInt64(1)));
        List<String> lines = new ArrayList<>();
        for (BsonValue id : ids) {
            lines.add(ReportFormat.finding(new Finding(FindingKind.MISSING, PAIR, id)).json());
        }
        lines.add(ReportFormat.finding(new Finding(FindingKind.IN_FLIGHT, PAIR, new BsonInt32(1), FindingKind.DIFFERENT)).json());
        Path file = dir.resolve("r.jsonl");
        Files.write(file, lines);
        List<Finding> read = new ArrayList<>();
        ReportReader.read(file, read::add, r -> { });
        assertThat(read).hasSize(ids.size() + 1);
        for (int i = 0; i < ids.size(); i++) {
            assertThat(read.get(i).id()).as(ids.get(i).toString()).isEqualTo(ids.get(i));
            assertThat(read.get(i).collection()).isEqualTo(PAIR);
            assertThat(read.get(i).kind()).isEqualTo(FindingKind.MISSING);
        }
        assertThat(read.get(ids.size())).isEqualTo(new Finding(FindingKind.IN_FLIGHT, PAIR, new BsonInt32(1), FindingKind.DIFFERENT));
        assertThat(lines.get(0)).isEqualTo("{\"type\":\"missing\",\"ns\":\"shop.orders.v2\",\"to\":\"replica.orders.v2\",\"_id\":{\"$numberInt\": \"7\"}}");
    }

    @Test
    void rangesWithOpenEndsAndANullIdAsABound(@TempDir Path dir) throws IOException {
        RangeResult open = new RangeResult(new IdRange(null, BsonNull.VALUE), 1, 0, 1, 0, 0);
        RangeResult tail = new RangeResult(new IdRange(new BsonString("k"), null), 0, 3, 0, 3, 0);
        String first = ReportFormat.range(PAIR, open).json();
        assertThat(first).doesNotContain("after").contains("\"upTo\":null");
        Path file = dir.resolve("r.jsonl");
        Files.write(file, List.of(ReportFormat.header(new ReportFormat.RunDescription(Instant.EPOCH, "h:1", "h:2", false, "bytes",
                "auto", 10, 3, 5000)).json(), first, ReportFormat.range(PAIR, tail).json()));
        List<ReportReader.DifferingRange> ranges = new ArrayList<>();
        ReportReader.read(file, f -> { }, ranges::add);
        assertThat(ranges).containsExactly(new ReportReader.DifferingRange(PAIR, new IdRange(null, BsonNull.VALUE), 1, 0),
                new ReportReader.DifferingRange(PAIR, new IdRange(new BsonString("k"), null), 0, 3));
    }

    @Test
    void summaryLinesCarryTheVerdict() {
        CollectionSummary c = new CollectionSummary(PAIR, "server", 10, 9, 1, 1, 1, 1, 0, 0, 0, 0, 12, null);
        BsonDocument collection = BsonDocument.parse(ReportFormat.collection(c).json());
        assertThat(collection.getString("outcome").getValue()).isEqualTo("differs");
        assertThat(collection.getString("hashing").getValue()).isEqualTo("server");
        assertThat(collection.get("error")).isEqualTo(BsonNull.VALUE);
        BsonDocument summary = BsonDocument.parse(ReportFormat.summary(List.of(c), Outcome.DIFFERS, 2000, Instant.EPOCH, null).json());
        assertThat(summary.getInt32("exitCode").getValue()).isEqualTo(1);
        assertThat(summary.getInt32("documents").getValue()).isEqualTo(19);
        assertThat(summary.getDouble("documentsPerSecond").getValue()).isEqualTo(9.5);
    }

    @Test
    void aBrokenLineIsNamed(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("r.jsonl");
        Files.write(file, List.of("{\"type\":\"summary\"}", "not json"));
        assertThatThrownBy(() -> ReportReader.read(file, f -> { }, r -> { })).hasMessageContaining("line 2");
    }
}
