package dev.tideline.verify.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.mongo.NameFilter;
import dev.tideline.event.Namespace;
import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.CollectionSummary;
import dev.tideline.verify.CollectionTally;
import dev.tideline.verify.DocumentComparison;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.Hashing;
import dev.tideline.verify.RangeResult;
import dev.tideline.verify.VerifySettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The first look with server hashing, on sides that hash in memory: what each range costs and what it finds. */
class CollectionPassTest {
    private static final CollectionPair PAIR = new CollectionPair(new Namespace("shop", "orders"), new Namespace("shop", "orders"));

    @TempDir
    Path dir;
    private final MemorySide source = new MemorySide("source");
    private final MemorySide destination = new MemorySide("destination");
    private final List<String> notes = new ArrayList<>();
    private final List<RangeResult> differing = new ArrayList<>();

    private static BsonDocument doc(int i, double price) {
        return new BsonDocument("_id", new BsonInt32(i)).append("name", new BsonString("n" + i)).append("price", new BsonDouble(price));
    }

    private void load(int n) {
        for (int i = 0; i < n; i++) {
            source.put(doc(i, i + 0.5));
            destination.put(doc(i, i + 0.5));
        }
    }

    private record Pass(CollectionSummary summary, List<Candidate> candidates) {
    }

    private Pass pass(Hashing hashing) {
        VerifySettings settings = new VerifySettings("mongodb://s", "mongodb://d", false, List.of(), NameFilter.all(), null,
                DocumentComparison.EXACT, hashing, 100, 50, 1, 0, 1000, dir);
        CollectionTally tally = new CollectionTally(PAIR, 0);
        List<Candidate> candidates = new ArrayList<>();
        try (CandidateSpool spool = CandidateSpool.create(dir)) {
            Retrier retrier = new Retrier(notes::add, Map.of("source", "mongodb://s", "destination", "mongodb://d"), 1);
            new CollectionPass(settings, retrier, notes::add, differing::add, spool, 0, PAIR, source, destination, tally).run();
            spool.read().forEachRemaining(candidates::add);
        }
        return new Pass(tally.summary(), candidates);
    }

    @Test
    void equalRangesCostOneDigestPerSideAndNothingIsListed() {
        load(1_000);
        Pass p = pass(Hashing.AUTO);
        assertThat(p.summary().hashing()).isEqualTo("server");
        assertThat(p.summary().ranges()).isEqualTo(10);
        // ten full ranges, then one that finds nothing after the last id
        assertThat(source.digests.get()).isEqualTo(11);
        assertThat(destination.digests.get()).isEqualTo(11);
        assertThat(source.listings.get() + destination.listings.get() + source.scans.get()).isZero();
        assertThat(p.candidates()).isEmpty();
        assertThat(p.summary().sourceDocuments()).isEqualTo(1_000);
    }

    @Test
    void onlyDifferingRangesAreNarrowedToTheirIds() {
        load(1_000);
        destination.docs.remove(new BsonInt32(150));
        destination.put(doc(420, 999.0));
        destination.put(new BsonDocument("_id", new BsonString("stray")));
        Pass p = pass(Hashing.AUTO);
        assertThat(p.candidates().stream().map(c -> c.seenAs() + " " + c.id()))
                .containsExactly("MISSING BsonInt32{value=150}", "DIFFERENT BsonInt32{value=420}", "EXTRA BsonString{value='stray'}");
        assertThat(p.candidates()).allMatch(c -> c.observation() == null); // server hashes are no baseline for the re-check
        assertThat(source.listings.get()).isEqualTo(3);
        assertThat(differing.stream().map(r -> r.range().toString())).containsExactly("(BsonInt32{value=99}, BsonInt32{value=199}]",
                "(BsonInt32{value=399}, BsonInt32{value=499}]", "(BsonInt32{value=999}, end]");
        assertThat(differing.get(0)).isEqualTo(new RangeResult(differing.get(0).range(), 100, 99, 1, 0, 0));
        assertThat(p.summary().destinationDocuments()).isEqualTo(1_000);
        assertThat(p.summary().rangesDiffering()).isEqualTo(3);
    }

    @Test
    void aPartialLastRangeRunsToTheEndOnTheDestination() {
        load(250);
        destination.put(doc(10_000, 1));
        Pass p = pass(Hashing.AUTO);
        assertThat(p.candidates().stream().map(c -> c.seenAs() + " " + c.id())).containsExactly("EXTRA BsonInt32{value=10000}");
        assertThat(differing.stream().map(r -> r.range().toString())).containsExactly("(BsonInt32{value=199}, end]");
        assertThat(source.digests.get()).isEqualTo(3);
    }

    @Test
    void aServerThatRefusesMidwayMakesTheCollectionReadFromTheStartWithoutDuplicates() {
        load(1_000);
        destination.docs.remove(new BsonInt32(50));
        destination.docs.remove(new BsonInt32(950));
        destination.refuseDigestsAfter = 5; // a mixed cluster: a member without the operator answers part way
        Pass p = pass(Hashing.AUTO);
        assertThat(notes).anyMatch(n -> n.contains("cannot hash ranges (error 168 InvalidPipelineOperator)"));
        assertThat(p.summary().hashing()).isEqualTo("client");
        assertThat(p.candidates().stream().map(c -> c.seenAs() + " " + c.id()))
                .containsExactly("MISSING BsonInt32{value=50}", "MISSING BsonInt32{value=950}");
        assertThat(p.summary().sourceDocuments()).isEqualTo(1_000);
        assertThat(p.summary().ranges()).isEqualTo(10);
        assertThat(p.summary().candidates()).isEqualTo(2);
        assertThat(p.candidates()).allMatch(c -> c.observation() != null && c.seenAs() == FindingKind.MISSING);
    }

    @Test
    void clientHashingReadsEachSideOnce() {
        load(1_000);
        Pass p = pass(Hashing.CLIENT);
        assertThat(p.summary().hashing()).isEqualTo("client");
        assertThat(source.scans.get()).isEqualTo(1);
        assertThat(destination.scans.get()).isEqualTo(1);
        assertThat(source.digests.get()).isZero();
    }
}
