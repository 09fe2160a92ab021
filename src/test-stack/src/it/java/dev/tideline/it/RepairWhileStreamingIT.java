package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.ops.JmxReader;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.CounterWriter;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicVersions;
import dev.tideline.source.repair.RepairSignals;
import dev.tideline.verify.cli.VerifyMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * Repair while streaming, on the real worker: a Tideline source and sink, an application writing at the
 * source all along, the destination altered by hand. {@code ./verify --repair} lists the altered ids and
 * writes a signal with them, which repairs exactly those (other sinks see only them again); a signal for the whole collection re-copies it in chunks
 * between watermarks while the updates go on, and on the topic no copied version of a document ever
 * follows a newer one. The destination ends equal to the source, byte for byte.
 */
class RepairWhileStreamingIT {
    private static final String SOURCE_DB = "repair_src";
    private static final String DEST_DB = "repair_dst";
    private static final String PREFIX = "rpr";
    private static final String COLL = "orders";
    private static final String TOPIC = PREFIX + "." + SOURCE_DB + "." + COLL;
    private static final int EXISTING = 3_000;
    /** The writer updates ids below this one and inserts (and deletes some) above NEW_IDS; the hand alterations stay between. */
    private static final int HOT_IDS = 1_500;
    private static final int NEW_IDS = 1_000_000;

    @Test
    void repairsListedIdsThenTheWholeCollectionWhileTheSourceKeepsWriting() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        Namespace ns = new Namespace(SOURCE_DB, COLL);
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture destination = MongoFixture.withOplog()) {
            MongoDatabase src = source.client().getDatabase(SOURCE_DB);
            MongoDatabase dst = destination.client().getDatabase(DEST_DB);
            List<BsonDocument> docs = new ArrayList<>();
            for (int i = 0; i < EXISTING; i++) {
                docs.add(new BsonDocument("_id", new BsonInt32(i)).append("n", new BsonInt32(0)).append("note", new BsonString("x".repeat(64))));
            }
            src.getCollection(COLL, BsonDocument.class).insertMany(docs);
            Map<String, String> sourceConfig = SourceItSupport.sourceConfig(source.uri(), SOURCE_DB, PREFIX, ValueFormat.BSON, 1);
            sourceConfig.put("repair.chunk.size", "200"); // 15 chunks for the whole collection: windows meet concurrent updates
            rest.putConnector("rpr-source", sourceConfig);
            rest.putConnector("rpr-sink", SinkItSupport.sinkConfig(TOPIC, destination.uri(), DEST_DB, ValueFormat.BSON));
            CounterWriter writer = new CounterWriter(src.getCollection(COLL, BsonDocument.class), HOT_IDS, NEW_IDS, 1);
            try {
                rest.awaitRunning("rpr-source", 1, Duration.ofSeconds(90));
                rest.awaitRunning("rpr-sink", 1, Duration.ofSeconds(90));
                SinkItSupport.await("the copy at the destination", Duration.ofMinutes(3),
                        () -> dst.getCollection(COLL).countDocuments() == EXISTING);
                src.getCollection(COLL, BsonDocument.class).insertOne(new BsonDocument("_id", new BsonInt32(-1)));
                SinkItSupport.await("a streamed change at the destination", Duration.ofMinutes(2),
                        () -> dst.getCollection(COLL).countDocuments(Filters.eq("_id", -1)) == 1);
                rest.awaitCommittedToken("rpr-source", ns, Duration.ofMinutes(2));
                writer.start();

                // 1. the ids altered by hand, listed in a signal
                Set<Integer> deleted = new TreeSet<>();
                Set<Integer> changed = new TreeSet<>();
                List<String> added = new ArrayList<>();
                MongoCollection<BsonDocument> d = dst.getCollection(COLL, BsonDocument.class);
                for (int i = 0; i < 20; i++) {
                    deleted.add(2_000 + i * 7);
                    d.deleteOne(Filters.eq("_id", 2_000 + i * 7));
                    changed.add(2_500 + i * 11);
                    d.updateOne(Filters.eq("_id", 2_500 + i * 11), Updates.set("note", "changed by hand"));
                    added.add("hand-" + i);
                    d.insertOne(new BsonDocument("_id", new BsonString("hand-" + i)));
                }
                Map<Integer, Long> before = TopicVersions.ends(stack.bootstrapServers(), TOPIC);
                long started = System.nanoTime();
                // verify lists them and feeds them to a repair (./verify --repair): one signal with the ids that differ
                Path report = Files.createDirectories(Path.of("target", "repair-it")).resolve("verify.jsonl");
                ByteArrayOutputStream verifyOut = new ByteArrayOutputStream();
                int code = VerifyMain.run(new String[] {"--source", source.uri(), "--destination", destination.uri(), "--database", SOURCE_DB,
                        "--destination-database", DEST_DB, "--rechecks", "2", "--recheck-delay", "2", "--report", report.toString(),
                        "--repair"}, Map.of(), new PrintStream(verifyOut, true, StandardCharsets.UTF_8), System.err);
                System.out.print(verifyOut.toString(StandardCharsets.UTF_8));
                assertThat(code).as("verify found the differences").isEqualTo(1);
                // the repair may already be under way: its watermark documents share the collection with the signals
                List<BsonDocument> signals = src.getCollection(RepairSignals.COLLECTION, BsonDocument.class).find().into(new ArrayList<>());
                signals.removeIf(s -> RepairSignals.isWatermark(s.get("_id")));
                assertThat(signals).hasSize(1);
                Set<BsonValue> listed = new java.util.HashSet<>(signals.get(0).getArray("ids").getValues());
                Set<BsonValue> altered = new java.util.HashSet<>();
                deleted.forEach(i -> altered.add(new BsonInt32(i)));
                changed.forEach(i -> altered.add(new BsonInt32(i)));
                added.forEach(s -> altered.add(new BsonString(s)));
                assertThat(listed).as("the signal verify wrote: exactly the altered ids").isEqualTo(altered);
                BsonValue first = signals.get(0).get("_id");
                awaitDone(rest, ns, first);
                long listedMs = (System.nanoTime() - started) / 1_000_000;
                SinkItSupport.await("the listed ids repaired at the destination", Duration.ofMinutes(1), () -> {
                    for (int id : deleted) {
                        if (d.countDocuments(Filters.eq("_id", id)) != 1) {
                            return false;
                        }
                    }
                    return d.countDocuments(Filters.eq("note", "changed by hand")) == 0
                            && d.countDocuments(Filters.regex("_id", "^hand-")) == 0;
                });
                List<ChangeEvent> repairRecords = TopicVersions.after(stack.bootstrapServers(), TOPIC, before).stream()
                        .map(TopicVersions.Written::event)
                        .filter(e -> e.op() == Op.READ || (e.op() == Op.DELETE && e.id().isString())).toList();
                Set<String> resent = new TreeSet<>();
                repairRecords.forEach(e -> resent.add(e.op().wireName() + ":" + e.id()));
                Set<String> expected = new TreeSet<>();
                deleted.forEach(i -> expected.add("read:" + new BsonInt32(i)));
                changed.forEach(i -> expected.add("read:" + new BsonInt32(i)));
                added.forEach(s -> expected.add("delete:" + new BsonString(s)));
                assertThat(resent).as("only the listed ids are sent again").isEqualTo(expected);
                assertThat(repairRecords).hasSize(expected.size());

                // 2. the whole collection, while the updates go on; a few more hand changes first
                for (int i = 0; i < 10; i++) {
                    d.updateOne(Filters.eq("_id", 2_900 + i), Updates.set("note", "changed again by hand"));
                }
                before = TopicVersions.ends(stack.bootstrapServers(), TOPIC);
                started = System.nanoTime();
                BsonValue whole = signal(src, new BsonDocument("collection", new BsonString(COLL)));
                awaitDone(rest, ns, whole);
                long wholeMs = (System.nanoTime() - started) / 1_000_000;
                long writesDuring = writer.writes();
                writer.stop();
                Map<BsonValue, RawBsonDocument> expectedDocs = SinkItSupport.snapshot(source.client(), ns);
                Map<BsonValue, BsonDocument> expectedView = new HashMap<>(expectedDocs);
                SinkItSupport.await("the destination equal to the source", Duration.ofMinutes(2), () -> SinkItSupport.byteDifferences(
                        expectedView, SinkItSupport.snapshot(destination.client(), new Namespace(DEST_DB, COLL))).isEmpty());

                // on the topic, from the signal on: per document, versions (cluster times; a copy carries its high
                // watermark's) never go back, and no copy follows a delete. Contents are not compared: an update's
                // looked-up document may be newer than the update itself.
                TopicVersions.Order order = TopicVersions.check(TopicVersions.after(stack.bootstrapServers(), TOPIC, before));
                long leftToStream = java.util.stream.IntStream.range(0, HOT_IDS)
                        .filter(i -> !order.copied().contains(new BsonInt32(i))).count();
                System.out.printf("REPAIR %d documents, writes at the source all along (%d in all): %d listed ids repaired in %d ms "
                                + "(%d records sent again, no other id); whole collection in chunks of 200 re-copied in %d ms: %d copies "
                                + "on the topic, %d changes since its signal, %d hot documents changed in their window and left to the "
                                + "stream, per-document order inversions %d; destination equal%n",
                        EXISTING, writesDuring, expected.size(), listedMs, repairRecords.size(), wholeMs, order.copies(), order.changes(),
                        leftToStream, order.inversions());
                try (JmxReader jmx = new JmxReader(stack.jmxUrl(0))) {
                    String bean = "dev.tideline:type=source-task,connector=rpr-source,task=0,collection=" + SOURCE_DB + "." + COLL;
                    assertThat(jmx.longAttribute(bean, "RepairsDone")).isEqualTo(2);
                    assertThat(jmx.longAttribute(bean, "RepairDocumentsDeleted")).as("the 20 ids added by hand").isEqualTo(20);
                    assertThat(jmx.longAttribute(bean, "RepairDocumentsCopied")).isEqualTo(40 + order.copies());
                    assertThat(jmx.attribute(bean, "RepairRunning")).isEqualTo("");
                }
                for (int i = HOT_IDS; i < EXISTING; i++) {
                    assertThat(order.copied()).as("a document nobody wrote is copied again").contains(new BsonInt32(i));
                }
                assertThat(order.inversions()).as("a copied version after a newer one").isZero();
            } finally {
                writer.stop();
                rest.deleteConnector("rpr-sink");
                rest.deleteConnector("rpr-source");
            }
        }
    }

    private static BsonValue signal(MongoDatabase src, BsonDocument signal) {
        BsonObjectId id = new BsonObjectId(new ObjectId());
        src.getCollection(RepairSignals.COLLECTION, BsonDocument.class).insertOne(signal.append("_id", id));
        return id;
    }

    /** The worker has committed the signal as done in the collection's offset. */
    private static void awaitDone(ConnectRest rest, Namespace ns, BsonValue signal) {
        SinkItSupport.await("repair " + signal + " done in the committed offset", Duration.ofMinutes(3), () -> {
            RepairProgress p = rest.sourceOffsetMap("rpr-source", ns).map(SourceOffset::repair).orElse(RepairProgress.NONE);
            return p.isDone(signal);
        });
    }

}
