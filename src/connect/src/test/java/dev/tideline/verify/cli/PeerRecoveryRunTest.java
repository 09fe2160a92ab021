package dev.tideline.verify.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Namespace;
import dev.tideline.peer.ContentHash;
import dev.tideline.peer.OriginDetector;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.PeerStamp;
import dev.tideline.peer.StampKeys;
import dev.tideline.peer.Version;
import dev.tideline.peer.sink.RecoveryStore;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import dev.tideline.sign.Mac128;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./verify --peers --peer-recovery} end to end on two in-process stand-ins, stamps and tombstones made by hand. */
class PeerRecoveryRunTest {
    private static final String KEY = "recovery-test-key-".repeat(3);
    private static final StampKeys KEYS = new StampKeys(KEY, null);
    private static final Namespace NS = new Namespace("shop", "orders");

    @TempDir
    Path dir;
    private final List<MongoFixture> fixtures = new ArrayList<>();

    @AfterEach
    void stop() {
        fixtures.forEach(MongoFixture::close);
    }

    private MongoFixture start() {
        MongoFixture f = MongoFixture.inProcess(new AwaitingMemoryBackend(), false);
        fixtures.add(f);
        return f;
    }

    private static Version v(int seconds, String origin) {
        return new Version(new BsonTimestamp(seconds, 1), origin);
    }

    /** A document as a peer sink of {@code cluster} holds it: stamped with {@code version}, signed there. */
    private static BsonDocument stamped(String cluster, int id, String value, Version version) {
        BsonDocument d = new BsonDocument("_id", new BsonInt32(id)).append("x", new BsonString(value));
        return new PeerStamp(version, ContentHash.of(d), null).signed(KEYS, cluster, NS, d.get("_id")).applyTo(d);
    }

    private static void tombstone(MongoFixture f, String cluster, int id, Version version) {
        Mac128 mac = KEYS.sign(PeerCollections.tombstoneBound(cluster, NS, new BsonInt32(id), version));
        tombstones(f).insertOne(new BsonDocument("_id", PeerCollections.tombstoneKey(NS.coll(), new BsonInt32(id)))
                .append("v", version.toBson()).append("expireAt", new BsonDateTime(System.currentTimeMillis() + 3_600_000))
                .append("k", new BsonString(mac.keyId())).append("m", new BsonString(mac.mac())));
    }

    private static MongoCollection<BsonDocument> coll(MongoFixture f) {
        return f.client().getDatabase(NS.db()).getCollection(NS.coll(), BsonDocument.class);
    }

    private static MongoCollection<BsonDocument> tombstones(MongoFixture f) {
        return f.client().getDatabase(NS.db()).getCollection(PeerCollections.TOMBSTONES, BsonDocument.class);
    }

    private record Output(int code, String out, String err) {
    }

    private Output verify(MongoFixture a, MongoFixture b, String name, String policy, String... more) throws Exception {
        Path keyFile = Files.writeString(dir.resolve("link.properties"), "peer.stamp.key=" + KEY + "\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> args = new ArrayList<>(List.of("--source", a.uri(), "--destination", b.uri(), "--peers", "--database", NS.db(),
                "--rechecks", "1", "--recheck-delay", "0.01", "--report", dir.resolve(name + ".jsonl").toString(),
                "--peer-recovery", policy, "--peer-ids", "A,B", "--peer-key-file", keyFile.toString()));
        args.addAll(List.of(more));
        int code = VerifyMain.run(args.toArray(String[]::new), Map.of(),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Output(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Map<BsonValue, BsonDocument> decisions(String name) throws Exception {
        Map<BsonValue, BsonDocument> out = new HashMap<>();
        for (String line : Files.readAllLines(dir.resolve(name + "-recovery.jsonl"))) {
            BsonDocument d = BsonDocument.parse(line);
            out.put(d.get("id"), d);
        }
        return out;
    }

    private static String decided(Map<BsonValue, BsonDocument> d, int id) {
        BsonDocument x = d.get(new BsonInt32(id));
        return x.getString("rule").getValue() + " " + x.getString("action").getValue() + " "
                + (x.containsKey("winner") ? x.getString("winner").getValue() : "-") + " " + x.getString("outcome").getValue();
    }

    @Test
    void eachIdIsDecidedAndWrittenOnTheLoserAsItsPeerSinkWould() throws Exception {
        MongoFixture a = start();
        MongoFixture b = start();
        // 1: B holds a newer version; 2: A wrote it and no longer has it; 3: a local write at A on top of B's version;
        // 4: only at B, written by B (ambiguous); 5: both changed locally (conflict); 6: equal, only the stamps differ
        coll(a).insertOne(stamped("A", 1, "old", v(10, "A")));
        coll(b).insertOne(stamped("B", 1, "new", v(20, "B")));
        coll(b).insertOne(stamped("B", 2, "gone", v(10, "A")));
        coll(a).insertOne(stamped("A", 3, "base", v(15, "B")));
        coll(a).updateOne(Filters.eq("_id", 3), Updates.set("x", "local"));
        coll(b).insertOne(stamped("B", 3, "base", v(15, "B")));
        coll(b).insertOne(stamped("B", 4, "only-b", v(12, "B")));
        coll(a).insertOne(new BsonDocument("_id", new BsonInt32(5)).append("x", new BsonString("a-local")));
        coll(b).insertOne(new BsonDocument("_id", new BsonInt32(5)).append("x", new BsonString("b-local")));
        coll(a).insertOne(stamped("A", 6, "same", v(9, "A")));
        coll(b).insertOne(stamped("B", 6, "same", v(11, "B")));
        // 7: deleted at B with a tombstone newer than A's version
        coll(a).insertOne(stamped("A", 7, "stale", v(10, "A")));
        tombstone(b, "B", 7, v(30, "B"));

        Output first = verify(a, b, "first", "report");
        assertThat(first.code).as(first.out + first.err).isEqualTo(1);
        Map<BsonValue, BsonDocument> d = decisions("first");
        assertThat(decided(d, 1)).isEqualTo("newer-stamp copy B applied");
        assertThat(decided(d, 2)).isEqualTo("deleted-by-origin delete A applied");
        assertThat(decided(d, 3)).isEqualTo("local-write-after copy A applied");
        assertThat(decided(d, 4)).isEqualTo("ambiguous none - reported");
        assertThat(decided(d, 5)).isEqualTo("conflict none - reported");
        assertThat(decided(d, 7)).isEqualTo("newer-tombstone delete B applied");
        assertThat(d).as("the stamps alone differ: not listed by verify").doesNotContainKey(new BsonInt32(6));
        assertThat(first.out).contains("delete wins 2 (1 newer tombstone, 1 deleted by its origin); present wins 2 (1 newer stamp, "
                + "0 newer than the tombstone, 1 local write after); ambiguous 1 reported, 0 copied, 0 deleted; 1 conflict(s) reported; "
                + "0 skipped because changed since");

        // 1: B's version at A, its stamp signed for A (A's source takes it for a peer's write, not a local one)
        BsonDocument one = coll(a).find(Filters.eq("_id", 1)).first();
        OriginDetector.Detected at = OriginDetector.detect(one, s -> s.authentic(KEYS, "A", NS, new BsonInt32(1)));
        assertThat(at.stamp()).as("a valid stamp at A").isNotNull();
        assertThat(at.stamp().version()).isEqualTo(v(20, "B"));
        assertThat(one.getString("x").getValue()).isEqualTo("new");
        // 2: deleted at B, with a tombstone of A's, newer than the version it deleted, that authenticates at B
        assertThat(coll(b).countDocuments(Filters.eq("_id", 2))).isZero();
        BsonDocument tomb = tombstones(b).find(Filters.eq("_id", PeerCollections.tombstoneKey(NS.coll(), new BsonInt32(2)))).first();
        Version tv = Version.fromBson(tomb.get("v"));
        assertThat(tv.origin()).isEqualTo("A");
        assertThat(tv.newerThan(v(10, "A"))).isTrue();
        assertThat(KEYS.verify(PeerStamp.macOf(tomb), PeerCollections.tombstoneBound("B", NS, new BsonInt32(2), tv))).isTrue();
        // and A, whose delete it is, keeps that tombstone too, signed for A
        BsonDocument tombA = tombstones(a).find(Filters.eq("_id", PeerCollections.tombstoneKey(NS.coll(), new BsonInt32(2)))).first();
        assertThat(Version.fromBson(tombA.get("v"))).isEqualTo(tv);
        assertThat(KEYS.verify(PeerStamp.macOf(tombA), PeerCollections.tombstoneBound("A", NS, new BsonInt32(2), tv))).isTrue();
        // 3: the local write stamped at A with a new version based on B's, and the same at B
        PeerStamp atA = PeerStamp.read(coll(a).find(Filters.eq("_id", 3)).first());
        PeerStamp atB = PeerStamp.read(coll(b).find(Filters.eq("_id", 3)).first());
        assertThat(atA.version()).isEqualTo(atB.version());
        assertThat(atA.version().origin()).isEqualTo("A");
        assertThat(atA.base()).isEqualTo(v(15, "B"));
        assertThat(atA.authentic(KEYS, "A", NS, new BsonInt32(3))).isTrue();
        assertThat(atB.authentic(KEYS, "B", NS, new BsonInt32(3))).isTrue();
        // 4 and 5 untouched
        assertThat(coll(a).countDocuments(Filters.eq("_id", 4))).isZero();
        assertThat(coll(b).find(Filters.eq("_id", 5)).first().getString("x").getValue()).isEqualTo("b-local");
        // 7: deleted at A under B's tombstone
        assertThat(coll(a).countDocuments(Filters.eq("_id", 7))).isZero();
        BsonDocument tomb7 = tombstones(a).find(Filters.eq("_id", PeerCollections.tombstoneKey(NS.coll(), new BsonInt32(7)))).first();
        assertThat(Version.fromBson(tomb7.get("v"))).as("B's delete, kept at A").isEqualTo(v(30, "B"));

        Output second = verify(a, b, "second", "copy");
        Map<BsonValue, BsonDocument> again = decisions("second");
        assertThat(again.keySet()).containsExactlyInAnyOrder(new BsonInt32(4), new BsonInt32(5));
        assertThat(decided(again, 4)).isEqualTo("ambiguous copy B applied");
        assertThat(decided(again, 5)).isEqualTo("conflict none - reported");
        assertThat(second.out).contains("ambiguous 0 reported, 1 copied, 0 deleted");
        assertThat(coll(a).find(Filters.eq("_id", 4)).first().getString("x").getValue()).isEqualTo("only-b");
    }

    @Test
    void aDryRunDecidesEveryIdAndWritesNothingOnEitherCluster() throws Exception {
        MongoFixture a = start();
        MongoFixture b = start();
        coll(a).insertOne(stamped("A", 1, "old", v(10, "A")));
        coll(b).insertOne(stamped("B", 1, "new", v(20, "B")));
        coll(b).insertOne(stamped("B", 2, "gone", v(10, "A")));
        coll(b).insertOne(stamped("B", 4, "only-b", v(12, "B")));
        List<BsonDocument> beforeA = coll(a).find().into(new ArrayList<>());
        List<BsonDocument> beforeB = coll(b).find().into(new ArrayList<>());

        Output dry = verify(a, b, "dry", "copy", "--dry-run");
        assertThat(dry.code).as(dry.out + dry.err).isEqualTo(1);
        Map<BsonValue, BsonDocument> d = decisions("dry");
        assertThat(decided(d, 1)).isEqualTo("newer-stamp copy B planned");
        assertThat(decided(d, 2)).isEqualTo("deleted-by-origin delete A planned");
        assertThat(decided(d, 4)).isEqualTo("ambiguous copy B planned");
        assertThat(dry.out).contains("DRY RUN, nothing written: peer recovery of 1 collection(s)").contains("3 id(s) left as they are");
        assertThat(coll(a).find().into(new ArrayList<>())).isEqualTo(beforeA);
        assertThat(coll(b).find().into(new ArrayList<>())).isEqualTo(beforeB);
        assertThat(tombstones(a).countDocuments() + tombstones(b).countDocuments()).as("no tombstone written").isZero();

        Output real = verify(a, b, "real", "copy");
        assertThat(decisions("real").values()).extracting(x -> x.getString("outcome").getValue()).containsOnly("applied");
        assertThat(real.out).doesNotContain("DRY RUN");
    }

    @Test
    void aDocumentChangedSinceItWasReadIsLeftAsItIs() {
        MongoFixture a = start();
        coll(a).insertOne(stamped("A", 1, "read", v(10, "A")));
        tombstone(a, "A", 2, v(5, "A"));
        RecoveryStore store = new RecoveryStore(a.client(), "A", KEYS, 60_000);
        Map<BsonValue, RecoveryStore.Read> read = store.read(NS, List.of(new BsonInt32(1), new BsonInt32(2)));
        coll(a).updateOne(Filters.eq("_id", 1), Updates.set("x", "changed since"));
        coll(a).insertOne(new BsonDocument("_id", new BsonInt32(2)).append("x", new BsonString("inserted since")));

        assertThat(store.write(NS, read.get(new BsonInt32(1)), stamped("B", 1, "winner", v(20, "B")))).isFalse();
        assertThat(coll(a).find(Filters.eq("_id", 1)).first().getString("x").getValue()).isEqualTo("changed since");
        assertThat(store.delete(NS, read.get(new BsonInt32(1)), v(30, "B"))).isFalse();
        assertThat(coll(a).countDocuments(Filters.eq("_id", 1))).isOne();
        assertThat(tombstones(a).countDocuments(Filters.eq("_id", PeerCollections.tombstoneKey(NS.coll(), new BsonInt32(1)))))
                .as("the tombstone written before the delete's condition failed is removed again").isZero();
        assertThat(store.write(NS, read.get(new BsonInt32(2)), stamped("B", 2, "winner", v(20, "B")))).as("inserted since").isFalse();
        assertThat(coll(a).find(Filters.eq("_id", 2)).first().getString("x").getValue()).isEqualTo("inserted since");
    }
}
