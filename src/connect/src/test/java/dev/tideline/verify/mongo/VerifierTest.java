package dev.tideline.verify.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.mongo.NameFilter;
import dev.tideline.standin.FaultInjectingBackend;
import dev.tideline.verify.CollectionSummary;
import dev.tideline.verify.DocumentComparison;
import dev.tideline.verify.Finding;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.Hashing;
import dev.tideline.verify.Outcome;
import dev.tideline.verify.RunResult;
import dev.tideline.verify.VerifyListener;
import dev.tideline.verify.VerifySettings;
import dev.tideline.verify.report.ReportLine;
import dev.tideline.verify.report.ReportReader;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whole runs against two in-process stand-ins (which cannot hash ranges: every run here reads documents). */
class VerifierTest {
    @TempDir
    Path dir;
    private final List<MongoServer> servers = new ArrayList<>();
    private final List<MongoClient> clients = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    @AfterEach
    void stop() {
        clients.forEach(MongoClient::close);
        servers.forEach(MongoServer::shutdownNow);
    }

    private String start(MongoBackend backend) {
        MongoServer server = new MongoServer(backend);
        server.bind("127.0.0.1", 0);
        servers.add(server);
        return "mongodb://127.0.0.1:" + server.getLocalAddress().getPort();
    }

    private MongoCollection<BsonDocument> coll(String uri, String db, String name) {
        MongoClient c = MongoClients.create(uri);
        clients.add(c);
        return c.getDatabase(db).getCollection(name, BsonDocument.class);
    }

    private static List<BsonDocument> docs(int from, int to) {
        List<BsonDocument> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(new BsonDocument("_id", new BsonInt32(i)).append("name", new BsonString("n" + i)).append("price", new BsonDouble(i + 0.25)));
        }
        return out;
    }

    private VerifySettings settings(String src, String dst, boolean peers, Hashing hashing, int rechecks, long delayMs) {
        return new VerifySettings(src, dst, peers, List.of("shop"), NameFilter.all(), null,
                peers ? DocumentComparison.PEERS : DocumentComparison.EXACT, hashing, 100, 50, rechecks, delayMs, 2_000, dir);
    }

    private record Run(RunResult result, List<Finding> findings, List<ReportReader.DifferingRange> ranges, List<String> lines) {
        Set<String> ids(FindingKind kind) {
            return findings.stream().filter(f -> f.kind() == kind).map(f -> f.collection().source().coll() + ":" + f.id())
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private Run run(VerifySettings settings, VerifyListener listener) throws IOException {
        List<ReportLine> lines = new ArrayList<>();
        RunResult result;
        try (Verifier v = new Verifier(settings, listener, lines::add, 50)) {
            result = v.run();
        }
        Path file = dir.resolve("report.jsonl");
        Files.write(file, lines.stream().map(ReportLine::json).toList());
        List<Finding> findings = new ArrayList<>();
        List<ReportReader.DifferingRange> ranges = new ArrayList<>();
        ReportReader.read(file, findings::add, ranges::add);
        return new Run(result, findings, ranges, lines.stream().map(ReportLine::json).toList());
    }

    private VerifyListener notes() {
        return notes::add;
    }

    @Test
    void equalCollectionsAreEqual() throws IOException {
        String src = start(new AwaitingMemoryBackend());
        String dst = start(new AwaitingMemoryBackend());
        coll(src, "shop", "orders").insertMany(docs(0, 1_000));
        coll(dst, "shop", "orders").insertMany(docs(0, 1_000));
        coll(src, "shop", "_tideline_versions").insertOne(new BsonDocument("_id", new BsonInt32(1)));
        Run run = run(settings(src, dst, false, Hashing.AUTO, 3, 10), notes());
        assertThat(run.result().outcome()).isEqualTo(Outcome.EQUAL);
        assertThat(run.findings()).isEmpty();
        CollectionSummary c = run.result().collections().get(0);
        assertThat(run.result().collections()).hasSize(1); // Tideline's own collections are never compared
        assertThat(c.sourceDocuments()).isEqualTo(1_000);
        assertThat(c.destinationDocuments()).isEqualTo(1_000);
        assertThat(c.ranges()).isEqualTo(10);
        assertThat(c.rangesDiffering()).isZero();
        assertThat(c.hashing()).isEqualTo("client");
        assertThat(notes).anyMatch(n -> n.contains("cannot hash ranges (error 168"));
        assertThat(run.lines().get(run.lines().size() - 1)).contains("\"outcome\":\"equal\"", "\"exitCode\":0");
    }

    /**
     * A json pipeline's destination: the same fields and values, another field order (JsonConverter's maps do not keep
     * it). Verify compares exact BSON, so they differ; the report and the health say they differ in field order only,
     * and why, apart from a real difference.
     */
    @Test
    void documentsThatDifferInFieldOrderOnlySaySo() throws IOException {
        String src = start(new AwaitingMemoryBackend());
        String dst = start(new AwaitingMemoryBackend());
        coll(src, "shop", "orders").insertMany(docs(0, 10));
        List<BsonDocument> reordered = new ArrayList<>();
        for (BsonDocument d : docs(0, 10)) {
            reordered.add(new BsonDocument("_id", d.get("_id")).append("price", d.get("price")).append("name", d.get("name")));
        }
        reordered.set(7, reordered.get(7).clone().append("price", new BsonDouble(99))); // a real difference besides
        coll(dst, "shop", "orders").insertMany(reordered);
        Run run = run(settings(src, dst, false, Hashing.CLIENT, 1, 10), notes());
        assertThat(run.result().outcome()).as("the bytes differ: exact BSON is what verify compares").isEqualTo(Outcome.DIFFERS);
        assertThat(run.ids(FindingKind.DIFFERENT)).hasSize(10);
        assertThat(run.findings().stream().filter(Finding::fieldOrderOnly).map(f -> f.id().asInt32().getValue()))
                .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 8, 9);
        assertThat(run.lines()).filteredOn(l -> l.startsWith("{\"type\":\"different\"") && l.contains("\"only\":\"field-order\"")).hasSize(9);
        CollectionSummary orders = run.result().collections().get(0);
        assertThat(orders.different()).isEqualTo(10);
        assertThat(orders.fieldOrderOnly()).isEqualTo(9);
        assertThat(orders.describe()).contains("9 of the different in field order only", "json form", "output.format=bson");
        assertThat(run.lines()).anyMatch(l -> l.contains("\"differentInFieldOrderOnly\":9"));
        assertThat(dev.tideline.verify.connect.VerifyHealth.of(run.result()).reasons()).singleElement().asString()
                .contains("10 different, 9 of them in field order only", "verify.ignore.field.order=true");

        // compared with the field order ignored, only the real difference is left
        VerifySettings ignoringOrder = new VerifySettings(src, dst, false, List.of("shop"), NameFilter.all(), null,
                new DocumentComparison(Set.of(), true), Hashing.CLIENT, 100, 50, 1, 10, 2_000, dir);
        Run again = run(ignoringOrder, notes());
        assertThat(again.ids(FindingKind.DIFFERENT)).containsExactly("orders:BsonInt32{value=7}");
        assertThat(again.findings()).noneMatch(Finding::fieldOrderOnly);
    }

    @Test
    void listsExactlyTheIdsThatDifferAndTheRangesTheyAreIn() throws IOException {
        String src = start(new AwaitingMemoryBackend());
        String dst = start(new AwaitingMemoryBackend());
        coll(src, "shop", "orders").insertMany(docs(0, 1_000));
        coll(dst, "shop", "orders").insertMany(docs(0, 1_000));
        MongoCollection<BsonDocument> d = coll(dst, "shop", "orders");
        d.deleteMany(Filters.in("_id", List.of(0, 150, 999)));
        d.updateOne(Filters.eq("_id", 500), Updates.set("price", 500.5)); // a fraction only: bytes see it
        d.updateOne(Filters.eq("_id", 501), Updates.set("price", 501)); // same value as an int: bytes see the type
        d.insertOne(new BsonDocument("_id", new BsonString("stray")));
        d.insertOne(new BsonDocument("_id", new BsonInt32(5_000)));
        // a collection that exists only at the source: all missing
        coll(src, "shop", "carts").insertMany(docs(0, 3));
        Run run = run(settings(src, dst, false, Hashing.CLIENT, 2, 10), notes());
        assertThat(run.result().outcome()).isEqualTo(Outcome.DIFFERS);
        assertThat(run.ids(FindingKind.MISSING)).containsExactly("carts:BsonInt32{value=0}", "carts:BsonInt32{value=1}",
                "carts:BsonInt32{value=2}", "orders:BsonInt32{value=0}", "orders:BsonInt32{value=150}", "orders:BsonInt32{value=999}");
        assertThat(run.ids(FindingKind.DIFFERENT)).containsExactly("orders:BsonInt32{value=500}", "orders:BsonInt32{value=501}");
        assertThat(run.ids(FindingKind.EXTRA)).containsExactly("orders:BsonInt32{value=5000}", "orders:BsonString{value='stray'}");
        assertThat(run.ids(FindingKind.IN_FLIGHT)).isEmpty();
        // ranges of 100 source documents: (start, 99], (99, 199], (499, 599], (899, 999], then the extras after the last source id
        assertThat(run.ranges().stream().filter(r -> r.collection().source().coll().equals("orders"))
                .map(r -> r.range().toString())).containsExactly("(start, BsonInt32{value=99}]",
                "(BsonInt32{value=99}, BsonInt32{value=199}]", "(BsonInt32{value=499}, BsonInt32{value=599}]",
                "(BsonInt32{value=899}, BsonInt32{value=999}]", "(BsonInt32{value=999}, end]");
        CollectionSummary orders = run.result().collections().stream().filter(c -> c.collection().source().coll().equals("orders"))
                .findFirst().orElseThrow();
        assertThat(orders.missing()).isEqualTo(3);
        assertThat(orders.candidates()).isEqualTo(7);
        assertThat(orders.settled()).isZero();
    }

    @Test
    void aDifferenceRepairedBeforeItsRecheckSettles() throws IOException {
        String src = start(new AwaitingMemoryBackend());
        String dst = start(new AwaitingMemoryBackend());
        coll(src, "shop", "orders").insertMany(docs(0, 200));
        coll(dst, "shop", "orders").insertMany(docs(0, 200));
        MongoCollection<BsonDocument> d = coll(dst, "shop", "orders");
        d.deleteOne(Filters.eq("_id", 7));
        VerifyListener repairAfterTheFirstLook = new VerifyListener() {
            @Override
            public void note(String message) {
            }

            @Override
            public void passed(CollectionSummary collection) {
                d.insertOne(docs(7, 8).get(0)); // the pipeline catches up
            }
        };
        Run run = run(settings(src, dst, false, Hashing.CLIENT, 2, 10), repairAfterTheFirstLook);
        assertThat(run.result().outcome()).isEqualTo(Outcome.EQUAL);
        assertThat(run.findings()).isEmpty();
        assertThat(run.result().collections().get(0).settled()).isEqualTo(1);
        assertThat(run.result().collections().get(0).candidates()).isEqualTo(1);
    }

    @Test
    void anIdThatKeepsChangingIsInFlightNotDifferent() throws IOException {
        String src = start(new AwaitingMemoryBackend());
        String dst = start(new AwaitingMemoryBackend());
        coll(src, "shop", "orders").insertMany(docs(0, 200));
        coll(dst, "shop", "orders").insertMany(docs(0, 200));
        MongoCollection<BsonDocument> s = coll(src, "shop", "orders");
        s.updateOne(Filters.eq("_id", 42), Updates.set("name", "v0"));
        AtomicInteger version = new AtomicInteger();
        VerifyListener writerAtTheSource = message -> {
            if (message.startsWith("re-check")) {
                s.updateOne(Filters.eq("_id", 42), Updates.set("name", "v" + version.incrementAndGet()));
            }
        };
        Run run = run(settings(src, dst, false, Hashing.CLIENT, 3, 10), writerAtTheSource);
        assertThat(run.result().outcome()).isEqualTo(Outcome.UNSETTLED);
        assertThat(run.findings()).containsExactly(new Finding(FindingKind.IN_FLIGHT, run.findings().get(0).collection(),
                new BsonInt32(42), FindingKind.DIFFERENT));
        assertThat(version.get()).isEqualTo(3);
    }

    @Test
    void rechecksZeroReportsTheFirstLook() throws IOException {
        String src = start(new AwaitingMemoryBackend());
        String dst = start(new AwaitingMemoryBackend());
        coll(src, "shop", "orders").insertMany(docs(0, 10));
        coll(dst, "shop", "orders").insertMany(docs(1, 10));
        Run run = run(settings(src, dst, false, Hashing.CLIENT, 0, 0), notes());
        assertThat(run.ids(FindingKind.MISSING)).containsExactly("orders:BsonInt32{value=0}");
    }

    @Test
    void peersIgnoreTheStampAndCompareCollectionsOfBothSides() throws IOException {
        String a = start(new AwaitingMemoryBackend());
        String b = start(new AwaitingMemoryBackend());
        List<BsonDocument> base = docs(0, 300);
        coll(a, "shop", "orders").insertMany(base);
        List<BsonDocument> stamped = new ArrayList<>();
        for (BsonDocument doc : base) {
            stamped.add(doc.clone().append("_tl", new BsonDocument("o", new BsonString("A")).append("h", new BsonString("x"))));
        }
        coll(b, "shop", "orders").insertMany(stamped);
        coll(b, "shop", "orders").updateOne(Filters.eq("_id", 3), Updates.set("name", "changed at B"));
        coll(b, "shop", "only_at_b").insertOne(new BsonDocument("_id", new BsonInt32(1)));
        Run run = run(settings(a, b, true, Hashing.AUTO, 1, 10), notes());
        assertThat(run.ids(FindingKind.DIFFERENT)).containsExactly("orders:BsonInt32{value=3}");
        assertThat(run.ids(FindingKind.EXTRA)).containsExactly("only_at_b:BsonInt32{value=1}");
        assertThat(run.findings()).hasSize(2);
        assertThat(run.lines().get(0)).contains("\"peers\":true", "\"comparison\":\"bytes without _tl\"");
    }

    @Test
    void aCursorThatFailsMidwayIsReadAgainAfterTheLastComparedId() throws IOException {
        FaultInjectingBackend faulty = new FaultInjectingBackend();
        String src = start(faulty);
        String dst = start(new AwaitingMemoryBackend());
        coll(src, "shop", "orders").insertMany(docs(0, 500));
        coll(dst, "shop", "orders").insertMany(docs(0, 500));
        coll(dst, "shop", "orders").deleteOne(Filters.eq("_id", 400));
        faulty.failNext("shop", Set.of("getMore"), 91, "ShutdownInProgress", 1);
        Run run = run(settings(src, dst, false, Hashing.CLIENT, 1, 10), notes());
        assertThat(faulty.injected()).isEqualTo(1);
        assertThat(notes).anyMatch(n -> n.contains("retrying in 50 ms") && n.contains("ShutdownInProgress"));
        assertThat(notes).anyMatch(n -> n.contains("reading both sides again after _id"));
        assertThat(run.ids(FindingKind.MISSING)).containsExactly("orders:BsonInt32{value=400}");
        assertThat(run.result().collections().get(0).sourceDocuments()).isEqualTo(500);
        assertThat(run.result().collections().get(0).destinationDocuments()).isEqualTo(499);
    }

    @Test
    void serverHashingDemandedWhereServersCannotFailsTheCollectionWithWhatToDo() throws IOException {
        String src = start(new AwaitingMemoryBackend());
        String dst = start(new AwaitingMemoryBackend());
        coll(src, "shop", "orders").insertMany(docs(0, 10));
        coll(dst, "shop", "orders").insertMany(docs(0, 10));
        Run run = run(settings(src, dst, false, Hashing.SERVER, 1, 10), notes());
        assertThat(run.result().outcome()).isEqualTo(Outcome.FAILED);
        assertThat(run.result().collections().get(0).error()).contains("server hashing is not available for shop.orders", "168",
                "use --hashing auto or client");
    }

    @Test
    void anUnreachableDestinationStopsTheRunNamingItWithoutItsPassword() throws IOException {
        String src = start(new AwaitingMemoryBackend());
        coll(src, "shop", "orders").insertMany(docs(0, 10));
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        String dst = "mongodb://verifier:s3cret@127.0.0.1:" + closedPort + "/?connectTimeoutMS=300&serverSelectionTimeoutMS=300";
        VerifySettings settings = new VerifySettings(src, dst, false, List.of("shop"), NameFilter.all(), null, DocumentComparison.EXACT,
                Hashing.CLIENT, 100, 50, 1, 10, 300, dir);
        Run run = run(settings, notes());
        assertThat(run.result().outcome()).isEqualTo(Outcome.FAILED);
        assertThat(run.result().failure()).contains("cannot reach the destination (127.0.0.1:" + closedPort + ")")
                .doesNotContain("s3cret");
        assertThat(String.join("\n", run.lines())).doesNotContain("s3cret").contains("\"outcome\":\"failed\"");
        assertThat(String.join("\n", notes)).doesNotContain("s3cret");
    }

    @Test
    void mixedIdTypesAndADestinationDatabaseOfAnotherName() throws IOException {
        String src = start(new AwaitingMemoryBackend());
        String dst = start(new AwaitingMemoryBackend());
        List<BsonValue> ids = List.of(new BsonInt32(1), new BsonString("a"), new BsonDocument("k", new BsonInt32(1)),
                new org.bson.BsonObjectId(), org.bson.BsonBoolean.TRUE, new org.bson.BsonDateTime(5));
        for (BsonValue id : ids) {
            coll(src, "shop", "mixed").insertOne(new BsonDocument("_id", id).append("v", new BsonInt32(1)));
            if (!id.isString()) {
                coll(dst, "replica", "mixed").insertOne(new BsonDocument("_id", id).append("v", new BsonInt32(id.isBoolean() ? 2 : 1)));
            }
        }
        VerifySettings s = new VerifySettings(src, dst, false, List.of("shop"), NameFilter.all(), "replica", DocumentComparison.EXACT,
                Hashing.CLIENT, 2, 2, 1, 10, 2_000, dir);
        Run run = run(s, notes());
        assertThat(run.ids(FindingKind.MISSING)).containsExactly("mixed:BsonString{value='a'}");
        assertThat(run.ids(FindingKind.DIFFERENT)).containsExactly("mixed:BsonBoolean{value=true}");
        assertThat(run.findings().get(0).collection().destination().fullName()).isEqualTo("replica.mixed");
    }
}
