package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.ops.JmxReader;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.verify.Finding;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.cli.VerifyMain;
import dev.tideline.verify.report.ReportReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * Verify on a live pipeline: a Tideline source and sink on the real worker copy two collections, an
 * application keeps writing at the source, and the destination is altered by hand (documents deleted,
 * changed, added). Verify must list exactly the altered ids while the writes go on (writes in flight
 * are reported as in flight or settle on their re-check, never as differences), the same again through
 * the {@code ./verify} script once the writes stop, and the scheduled connector must report them on its
 * topic and as degraded health, then ok once the destination is repaired.
 */
class VerifyDestinationIT {
    private static final String SOURCE_DB = "verify_src";
    private static final String DEST_DB = "verify_dst";
    private static final String PREFIX = "vfy";
    private static final List<String> COLLECTIONS = List.of("orders", "customers");
    private static final int EXISTING = 2_000;
    /** The writer's ids: updates to these hot ids, inserts of new ids above NEW_IDS; hand alterations stay clear of both. */
    private static final int HOT_IDS = 100;
    private static final int NEW_IDS = 1_000_000;

    @Test
    void listsExactlyTheAlteredIdsWhileTheSourceKeepsWriting() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        Path work = Files.createDirectories(Path.of("target", "verify-it"));
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture destination = MongoFixture.withOplog()) {
            MongoDatabase src = source.client().getDatabase(SOURCE_DB);
            MongoDatabase dst = destination.client().getDatabase(DEST_DB);
            for (String c : COLLECTIONS) {
                List<BsonDocument> docs = new ArrayList<>();
                for (int i = 0; i < EXISTING; i++) {
                    docs.add(doc(i, c + "-" + i));
                }
                src.getCollection(c, BsonDocument.class).insertMany(docs);
            }
            List<String> topics = COLLECTIONS.stream().map(c -> PREFIX + "." + SOURCE_DB + "." + c).toList();
            rest.putConnector("vfy-source", SourceItSupport.sourceConfig(source.uri(), SOURCE_DB, PREFIX, ValueFormat.BSON, 1));
            rest.putConnector("vfy-sink", SinkItSupport.sinkConfig(String.join(",", topics), destination.uri(), DEST_DB, ValueFormat.BSON));
            Writer writer = new Writer(src);
            try {
                rest.awaitRunning("vfy-source", 1, Duration.ofSeconds(90));
                rest.awaitRunning("vfy-sink", 1, Duration.ofSeconds(90));
                SinkItSupport.await("the copy at the destination", Duration.ofMinutes(3), () -> COLLECTIONS.stream()
                        .allMatch(c -> dst.getCollection(c).countDocuments() == EXISTING));
                // streaming, with a committed position: no task restart copies a collection again over the hand alterations
                for (String c : COLLECTIONS) {
                    src.getCollection(c, BsonDocument.class).insertOne(doc(-1, "streaming"));
                }
                SinkItSupport.await("a streamed change at the destination", Duration.ofMinutes(2), () -> COLLECTIONS.stream()
                        .allMatch(c -> dst.getCollection(c).countDocuments(Filters.eq("_id", -1)) == 1));
                for (String c : COLLECTIONS) {
                    rest.awaitCommittedToken("vfy-source", new Namespace(SOURCE_DB, c), Duration.ofMinutes(2));
                }

                long writesBefore = writer.writes.get();
                writer.start();
                Altered altered = alter(dst);
                // the writes under way before the run (~200/s): a count of them, not a time
                Waits.until("200 writes at the source before the run", Duration.ofMinutes(1), Duration.ofMillis(20),
                        writer.writes::get, w -> w >= writesBefore + 200);

                // 1. while the source keeps writing
                long started = System.nanoTime();
                Path during = work.resolve("during-writes.jsonl");
                Output run = verifyInProcess(source.uri(), destination.uri(), during);
                long duringMs = (System.nanoTime() - started) / 1_000_000;
                List<Finding> found = findings(during);
                System.out.println(run.out);
                assertThat(run.exitCode).as(run.err).isEqualTo(1);
                assertThat(ids(found, FindingKind.MISSING)).isEqualTo(altered.deleted);
                assertThat(ids(found, FindingKind.DIFFERENT)).isEqualTo(altered.changed);
                assertThat(ids(found, FindingKind.EXTRA)).isEqualTo(altered.added);
                Set<String> inFlight = ids(found, FindingKind.IN_FLIGHT);
                assertThat(inFlight).as("only ids the writer touched may be in flight").allMatch(writer.touched::contains);
                long settled = settled(during);

                // 2. the writes stop: the same list through the script, nothing in flight
                writer.stop();
                Path after = work.resolve("after-writes.jsonl");
                Map<String, String> env = new HashMap<>();
                env.put("TIDELINE_VERIFY_SOURCE", source.uri());
                env.put("TIDELINE_VERIFY_DESTINATION", destination.uri());
                Process script = scriptWithEnv(env, after);
                String scriptOut = new String(script.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(script.waitFor(5, TimeUnit.MINUTES)).isTrue();
                System.out.println(scriptOut);
                assertThat(script.exitValue()).as(scriptOut).isEqualTo(1);
                List<Finding> quiet = findings(after);
                assertThat(ids(quiet, FindingKind.MISSING)).isEqualTo(altered.deleted);
                assertThat(ids(quiet, FindingKind.DIFFERENT)).isEqualTo(altered.changed);
                assertThat(ids(quiet, FindingKind.EXTRA)).isEqualTo(altered.added);
                assertThat(ids(quiet, FindingKind.IN_FLIGHT)).isEmpty();

                // 3. on a schedule in the worker: report records and health
                scheduled(stack, source, destination, altered);

                System.out.printf("VERIFY destination: %d + %d documents, %d writes at the source during the run, altered by hand %d deleted / "
                                + "%d changed / %d added: listed exactly in %d ms while writing (%d in flight, %d settled on re-check), "
                                + "and again by ./verify after the writes%n", EXISTING, EXISTING, writer.writes.get(), altered.deleted.size(),
                        altered.changed.size(), altered.added.size(), duringMs, inFlight.size(), settled);
            } finally {
                writer.stop();
                rest.deleteConnector("vfy-check");
                rest.deleteConnector("vfy-sink");
                rest.deleteConnector("vfy-source");
            }
        }
    }

    private static Process scriptWithEnv(Map<String, String> env, Path report) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("user.dir"), "verify").toString(), "--database", SOURCE_DB,
                "--destination-database", DEST_DB, "--recheck-delay", "3", "--report", report.toAbsolutePath().toString())
                .redirectErrorStream(true);
        pb.environment().putAll(env);
        return pb.start();
    }

    /** The connector on the worker, every 5 s: the altered ids on its topic and degraded health; ok after a repair by hand. */
    private static void scheduled(TestStack stack, MongoFixture source, MongoFixture destination, Altered altered) throws Exception {
        Map<String, String> config = new HashMap<>();
        config.put("connector.class", "dev.tideline.verify.connect.VerifyConnector");
        config.put("tasks.max", "1");
        config.put("verify.source.uri", source.uri());
        config.put("verify.destination.uri", destination.uri());
        config.put("verify.databases", SOURCE_DB);
        config.put("verify.destination.database", DEST_DB);
        config.put("verify.interval.ms", "5000");
        config.put("verify.recheck.delay.ms", "2000");
        config.put("verify.report.topic", "vfy.report");
        config.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        config.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        stack.rest().putConnector("vfy-check", config);
        stack.rest().awaitRunning("vfy-check", 1, Duration.ofSeconds(60));
        String mbean = "dev.tideline:type=verify-task,connector=vfy-check,task=0";
        try (JmxReader jmx = new JmxReader(stack.jmxUrl(0))) {
            SinkItSupport.await("a first scheduled run", Duration.ofMinutes(2), () -> jmx.names(mbean).size() == 1
                    && jmx.longAttribute(mbean, "Runs") >= 1);
            assertThat(jmx.attribute(mbean, "Health")).isEqualTo("degraded");
            assertThat((String[]) jmx.attribute(mbean, "HealthReasons")).containsExactlyInAnyOrder(
                    SOURCE_DB + ".customers: differs (" + count(altered, "customers") + ")",
                    SOURCE_DB + ".orders: differs (" + count(altered, "orders") + ")");
            List<ConsumerRecord<byte[], byte[]>> records = TopicReader.readUntil(stack.bootstrapServers(), "vfy.report",
                    rs -> rs.stream().anyMatch(r -> new String(r.value(), StandardCharsets.UTF_8).startsWith("{\"type\":\"summary\"")),
                    "a run's summary on the report topic", Duration.ofMinutes(2));
            Path fromTopic = Files.createDirectories(Path.of("target", "verify-it")).resolve("from-topic.jsonl");
            List<String> lines = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : records) {
                lines.add(new String(r.value(), StandardCharsets.UTF_8));
                if (lines.get(lines.size() - 1).startsWith("{\"type\":\"summary\"")) {
                    break; // the first run's report
                }
            }
            Files.write(fromTopic, lines);
            List<Finding> onTopic = findings(fromTopic);
            assertThat(ids(onTopic, FindingKind.MISSING)).isEqualTo(altered.deleted);
            assertThat(ids(onTopic, FindingKind.DIFFERENT)).isEqualTo(altered.changed);
            assertThat(ids(onTopic, FindingKind.EXTRA)).isEqualTo(altered.added);

            // repaired by hand from the source: the next run is equal and the health ok
            repair(source, destination, altered);
            long runs = jmx.longAttribute(mbean, "Runs");
            SinkItSupport.await("a run after the repair", Duration.ofMinutes(2), () -> jmx.longAttribute(mbean, "Runs") > runs + 1);
            assertThat(jmx.attribute(mbean, "LastOutcome")).isEqualTo("equal");
            assertThat(jmx.attribute(mbean, "Health")).isEqualTo("ok");
            System.out.printf("VERIFY scheduled: runs %d, last run %d documents in %d ms (%.0f docs/s), health %s%n",
                    jmx.longAttribute(mbean, "Runs"), jmx.longAttribute(mbean, "LastDocuments"), jmx.longAttribute(mbean, "LastRunMillis"),
                    (Double) jmx.attribute(mbean, "LastDocumentsPerSecond"), jmx.attribute(mbean, "Health"));
        }
    }

    private static String count(Altered a, String coll) {
        long m = a.deleted.stream().filter(s -> s.startsWith(coll + ":")).count();
        long e = a.added.stream().filter(s -> s.startsWith(coll + ":")).count();
        long d = a.changed.stream().filter(s -> s.startsWith(coll + ":")).count();
        return m + " missing, " + e + " extra, " + d + " different";
    }

    private record Altered(Set<String> deleted, Set<String> changed, Set<String> added) {
    }

    /** Hand alterations at the destination, on ids the writer never touches. */
    private static Altered alter(MongoDatabase dst) {
        Set<String> deleted = new TreeSet<>();
        Set<String> changed = new TreeSet<>();
        Set<String> added = new TreeSet<>();
        int[][] plan = {{5, 4, 3}, {2, 3, 2}}; // per collection: deleted, changed, added
        for (int c = 0; c < COLLECTIONS.size(); c++) {
            String coll = COLLECTIONS.get(c);
            MongoCollection<BsonDocument> d = dst.getCollection(coll, BsonDocument.class);
            for (int i = 0; i < plan[c][0]; i++) {
                int id = 500 + i * 97;
                d.deleteOne(Filters.eq("_id", id));
                deleted.add(coll + ":" + new BsonInt32(id));
            }
            for (int i = 0; i < plan[c][1]; i++) {
                int id = 1_200 + i * 89;
                d.updateOne(Filters.eq("_id", id), Updates.set("note", "changed by hand"));
                changed.add(coll + ":" + new BsonInt32(id));
            }
            for (int i = 0; i < plan[c][2]; i++) {
                BsonValue id = new BsonString("hand-" + i);
                d.insertOne(new BsonDocument("_id", id).append("note", new BsonString("added by hand")));
                added.add(coll + ":" + id);
            }
        }
        return new Altered(deleted, changed, added);
    }

    private static void repair(MongoFixture source, MongoFixture destination, Altered altered) {
        for (String coll : COLLECTIONS) {
            MongoCollection<BsonDocument> s = source.client().getDatabase(SOURCE_DB).getCollection(coll, BsonDocument.class);
            MongoCollection<BsonDocument> d = destination.client().getDatabase(DEST_DB).getCollection(coll, BsonDocument.class);
            for (String key : new TreeSet<>(Set.copyOf(concat(altered.deleted, altered.changed)))) {
                if (key.startsWith(coll + ":")) {
                    // keys read "<coll>:BsonInt32{value=<id>}"
                    int id = Integer.parseInt(key.substring(key.indexOf("value=") + "value=".length(), key.length() - 1));
                    d.replaceOne(Filters.eq("_id", id), s.find(Filters.eq("_id", id)).first(), new ReplaceOptions().upsert(true));
                }
            }
            d.deleteMany(Filters.regex("_id", "^hand-"));
        }
    }

    private static List<String> concat(Set<String> a, Set<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static BsonDocument doc(int id, String name) {
        return new BsonDocument("_id", new BsonInt32(id)).append("name", new BsonString(name)).append("n", new BsonInt32(0))
                .append("note", new BsonString("x".repeat(100)));
    }

    private record Output(int exitCode, String out, String err) {
    }

    private static Output verifyInProcess(String sourceUri, String destinationUri, Path report) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = VerifyMain.run(new String[] {"--source", sourceUri, "--destination", destinationUri, "--database", SOURCE_DB,
                "--destination-database", DEST_DB, "--rechecks", "3", "--recheck-delay", "10", "--report", report.toString()}, Map.of(),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Output(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static List<Finding> findings(Path report) {
        List<Finding> out = new ArrayList<>();
        ReportReader.read(report, out::add, r -> { });
        return out;
    }

    private static long settled(Path report) throws IOException {
        return Files.readAllLines(report).stream().filter(l -> l.startsWith("{\"type\":\"collection\""))
                .mapToLong(l -> BsonDocument.parse(l).getNumber("settled").longValue()).sum();
    }

    private static Set<String> ids(List<Finding> findings, FindingKind kind) {
        Set<String> out = new TreeSet<>();
        findings.stream().filter(f -> f.kind() == kind).forEach(f -> out.add(f.collection().source().coll() + ":" + f.id()));
        return out;
    }

    /** An application at the source: updates to hot ids, inserts of new ids and deletes of some of them, ~200 writes/s. */
    private static final class Writer {
        private final MongoDatabase db;
        private final AtomicBoolean running = new AtomicBoolean();
        private final AtomicLong writes = new AtomicLong();
        private final Set<String> touched = ConcurrentHashMap.newKeySet();
        private Thread thread;

        Writer(MongoDatabase db) {
            this.db = db;
        }

        void start() {
            running.set(true);
            thread = new Thread(this::run, "verify-it-writer");
            thread.start();
        }

        private void run() {
            Random random = new Random(17);
            int next = NEW_IDS;
            while (running.get()) {
                String coll = COLLECTIONS.get(random.nextInt(COLLECTIONS.size()));
                MongoCollection<BsonDocument> c = db.getCollection(coll, BsonDocument.class);
                double r = random.nextDouble();
                int id;
                if (r < 0.6) {
                    id = random.nextInt(HOT_IDS);
                    touched.add(coll + ":" + new BsonInt32(id));
                    c.updateOne(Filters.eq("_id", id), Updates.inc("n", 1));
                } else if (r < 0.9) {
                    id = next++;
                    touched.add(coll + ":" + new BsonInt32(id));
                    c.insertOne(doc(id, "new-" + id));
                } else {
                    id = NEW_IDS + random.nextInt(Math.max(1, next - NEW_IDS));
                    touched.add(coll + ":" + new BsonInt32(id));
                    c.deleteOne(Filters.eq("_id", id));
                }
                writes.incrementAndGet();
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            if (thread != null) {
                thread.join(10_000);
            }
        }
    }
}
