package dev.tideline.verify.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.FaultInjectingBackend;
import dev.tideline.standin.MongoFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./verify --repair} end to end, on two in-process stand-ins. */
class VerifyMainRepairTest {
    private static final String SIGNALS = "_tideline_signals";

    @TempDir
    Path dir;
    private final List<MongoFixture> fixtures = new ArrayList<>();

    @AfterEach
    void stop() {
        fixtures.forEach(MongoFixture::close);
    }

    private MongoFixture start(AwaitingMemoryBackend backend) {
        MongoFixture f = MongoFixture.inProcess(backend, false);
        fixtures.add(f);
        return f;
    }

    private record Output(int code, String out, String err) {
    }

    private Output verify(MongoFixture source, MongoFixture destination, String... more) {
        List<String> args = new ArrayList<>(List.of("--source", source.uri(), "--destination", destination.uri(),
                "--database", "shop,crm", "--rechecks", "2", "--recheck-delay", "0.01"));
        args.addAll(List.of(more));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = VerifyMain.run(args.toArray(String[]::new), Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Output(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static MongoCollection<BsonDocument> coll(MongoFixture f, String db, String name) {
        return f.client().getDatabase(db).getCollection(name, BsonDocument.class);
    }

    private static List<BsonDocument> docs(int from, int to) {
        List<BsonDocument> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(new BsonDocument("_id", new BsonInt32(i)).append("name", new BsonString("n" + i)));
        }
        return out;
    }

    /** The same documents on both sides: shop.orders (100), shop.customers (10), crm.people (5). */
    private static void load(MongoFixture... sides) {
        for (MongoFixture f : sides) {
            coll(f, "shop", "orders").insertMany(docs(0, 100));
            coll(f, "shop", "customers").insertMany(docs(0, 10));
            coll(f, "crm", "people").insertMany(docs(0, 5));
        }
    }

    private static List<BsonDocument> signals(MongoFixture f, String db) {
        return coll(f, db, SIGNALS).find().into(new ArrayList<>());
    }

    private static Set<BsonValue> ids(BsonDocument signal) {
        return new HashSet<>(signal.getArray("ids").getValues());
    }

    @Test
    void theDifferencesBecomeRepairSignalsAtTheSource() {
        MongoFixture source = start(new AwaitingMemoryBackend());
        MongoFixture destination = start(new AwaitingMemoryBackend());
        load(source, destination);
        MongoCollection<BsonDocument> orders = coll(destination, "shop", "orders");
        orders.deleteMany(Filters.in("_id", 3, 7));                                        // missing
        orders.insertOne(new BsonDocument("_id", new BsonInt32(500)));                     // extra
        orders.updateOne(Filters.eq("_id", 42), Updates.set("name", "changed"));           // different
        coll(destination, "crm", "people").deleteOne(Filters.eq("_id", 2));                // missing, another database
        Path report = dir.resolve("reports/run.jsonl");
        Instant before = Instant.now();

        Output o = verify(source, destination, "--report", report.toString(), "--repair");

        assertThat(o.code()).as(o.err()).isEqualTo(1); // differences found: unchanged by --repair
        assertThat(o.out()).contains("verify: repair signal(s) for shop.orders: 4 ids in 1 signal(s)\n")
                .contains("verify: repair signal(s) for crm.people: 1 ids in 1 signal(s)\n")
                .doesNotContain("for shop.customers");
        List<BsonDocument> shop = signals(source, "shop");
        assertThat(shop).hasSize(1);
        BsonDocument signal = shop.get(0);
        assertThat(signal.getString("collection").getValue()).isEqualTo("orders");
        assertThat(ids(signal)).containsExactlyInAnyOrder(new BsonInt32(3), new BsonInt32(7), new BsonInt32(42), new BsonInt32(500));
        assertThat(signal.getString("by").getValue()).isEqualTo("tideline-verify");
        assertThat(Instant.ofEpochMilli(signal.getDateTime("at").getValue())).isBetween(before.minusMillis(1), Instant.now());
        assertThat(signal.getString("report").getValue()).isEqualTo("run.jsonl");
        assertThat(signal.get("_id").isObjectId()).isTrue();
        List<BsonDocument> crm = signals(source, "crm");
        assertThat(crm).hasSize(1);
        assertThat(crm.get(0).getString("collection").getValue()).isEqualTo("people");
        assertThat(ids(crm.get(0))).containsExactly(new BsonInt32(2));
        // signals go to the source only
        assertThat(destination.client().getDatabase("shop").listCollectionNames().into(new ArrayList<>())).doesNotContain(SIGNALS);
        assertThat(destination.client().getDatabase("crm").listCollectionNames().into(new ArrayList<>())).doesNotContain(SIGNALS);

        // verify never compares Tideline's own collections, so the signals do not show up as a difference
        Output again = verify(source, destination, "--report", dir.resolve("again.jsonl").toString());
        assertThat(again.out()).contains("DIFFERS: 3 missing, 1 extra, 1 different").doesNotContain(SIGNALS);
    }

    @Test
    void anEqualDestinationWritesNoSignal() {
        MongoFixture source = start(new AwaitingMemoryBackend());
        MongoFixture destination = start(new AwaitingMemoryBackend());
        load(source, destination);

        Output o = verify(source, destination, "--report", dir.resolve("equal.jsonl").toString(), "--repair", "--quiet");

        assertThat(o.code()).as(o.err()).isZero();
        assertThat(o.out()).contains("verify: no repair signals written: no missing, extra or different ids");
        assertThat(signals(source, "shop")).isEmpty();
        assertThat(signals(source, "crm")).isEmpty();
    }

    @Test
    void aSourceThatRefusesTheSignalIsExit3AndNamesThePrivilege() {
        FaultInjectingBackend sourceBackend = new FaultInjectingBackend();
        MongoFixture source = start(sourceBackend);
        MongoFixture destination = start(new AwaitingMemoryBackend());
        load(source, destination);
        coll(destination, "shop", "orders").deleteOne(Filters.eq("_id", 9));
        // verify only reads, so the one insert on shop is the signal's
        sourceBackend.failNext("shop", Set.of("insert"), 13, "Unauthorized", 1);

        Output o = verify(source, destination, "--report", dir.resolve("refused.jsonl").toString(), "--repair");

        assertThat(o.code()).isEqualTo(3);
        assertThat(sourceBackend.injected()).isEqualTo(1);
        assertThat(o.err()).contains("verify: could not write repair signals: ").contains("Unauthorized")
                .contains(". The user needs insert on shop._tideline_signals.\n");
        assertThat(o.out()).contains("DIFFERS: 1 missing").doesNotContain("repair signal(s) for");
        assertThat(signals(source, "shop")).isEmpty();
    }

    @Test
    void repairWithTheReportOnStandardOutputIsRefusedBeforeConnecting() {
        Output o = verify(start(new AwaitingMemoryBackend()), start(new AwaitingMemoryBackend()), "--report", "-", "--repair");

        assertThat(o.code()).isEqualTo(3);
        assertThat(o.err()).startsWith("verify: --repair needs the report in a file");
        assertThat(o.out()).isEmpty();
    }
}
