package dev.tideline.it.fault;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.CounterWriter;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicVersions;
import dev.tideline.source.repair.RepairSignals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * kill -9 of the worker in the middle of a whole-collection repair, while the application keeps
 * writing: the restarted task goes on after the last chunk it had committed (it does not start over,
 * and no chunk is skipped), within each task run no copied version follows a newer one on the topic,
 * and the destination ends equal to the source, byte for byte. Runs with -Pfaults.
 */
class RepairKillFaultIT {
    private static final Pipeline P = new Pipeline("repairkill");
    private static final int EXISTING = 20_000;
    private static final int HOT_IDS = 5_000;
    private static final int NEW_IDS = 1_000_000;
    private static final int CHUNK = 100;

    @Test
    void aRepairKilledMidwayGoesOnAfterItsLastCommittedChunk() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        Namespace ns = new Namespace(P.db, Pipeline.COLLECTION);
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture destination = MongoFixture.withOplog()) {
            MongoDatabase src = source.client().getDatabase(P.db);
            MongoCollection<BsonDocument> coll = src.getCollection(Pipeline.COLLECTION, BsonDocument.class);
            List<BsonDocument> docs = new ArrayList<>();
            for (int i = 0; i < EXISTING; i++) {
                docs.add(new BsonDocument("_id", new BsonInt32(i)).append("n", new BsonInt32(0)).append("note", new BsonString("x".repeat(64))));
            }
            coll.insertMany(docs);
            rest.putConnector(P.sourceConnector(), P.sourceConfig(source.uri(), Map.of("repair.chunk.size", Integer.toString(CHUNK))));
            rest.putConnector(P.sinkConnector(), P.sinkConfig(destination.uri(), Map.of()));
            boolean killed = false;
            try (CounterWriter writer = new CounterWriter(coll, HOT_IDS, NEW_IDS, 1)) {
                rest.awaitRunning(P.sourceConnector(), 1, Duration.ofSeconds(90));
                rest.awaitRunning(P.sinkConnector(), 1, Duration.ofSeconds(90));
                MongoCollection<BsonDocument> dest = P.destCollection(destination.client()).withDocumentClass(BsonDocument.class);
                await("the copy at the destination", Duration.ofMinutes(3), () -> dest.countDocuments() == EXISTING);
                rest.awaitCommittedToken(P.sourceConnector(), ns, Duration.ofMinutes(2));
                // the destination drifts: documents changed by hand across the whole range
                for (int i = 0; i < EXISTING; i += 997) {
                    dest.updateOne(Filters.eq("_id", i), Updates.set("note", "changed by hand"));
                }
                writer.start();
                Map<Integer, Long> before = TopicVersions.ends(stack.bootstrapServers(), P.topic);
                BsonObjectId signal = new BsonObjectId(new ObjectId());
                src.getCollection(RepairSignals.COLLECTION, BsonDocument.class)
                        .insertOne(new BsonDocument("_id", signal).append("collection", new BsonString(Pipeline.COLLECTION)));

                // kill once the worker has committed a good part of the repair, not all of it
                RepairProgress atKill = awaitProgress(rest, ns, p -> p.isRunning(signal) && p.lastId() != null
                        && p.lastId().asInt32().getValue() >= EXISTING / 4, "a quarter of the repair committed");
                stack.killWorker();
                killed = true;
                RepairProgress committed = lastCommitted(stack.bootstrapServers());
                long writesAtKill = writer.writes();
                Pipeline.awaitWrites(writer::writes, writesAtKill, Pipeline.WRITES_WHILE_DOWN,
                        "the application goes on while the worker is down");
                stack.startWorker();
                killed = false;
                rest.awaitRunning(P.sourceConnector(), 1, Duration.ofSeconds(120));
                awaitProgress(rest, ns, p -> p.isDone(signal), "the repair done");
                writer.stop();

                Map<BsonValue, BsonDocument> expected = new HashMap<>();
                for (RawBsonDocument d : P.sourceCollection(source.client()).withDocumentClass(RawBsonDocument.class).find()) {
                    expected.put(d.get("_id"), d);
                }
                await("the destination equal to the source", Duration.ofMinutes(2), () -> differences(expected, destination).isEmpty());

                List<TopicVersions.Written> written = TopicVersions.after(stack.bootstrapServers(), P.topic, before);
                TopicVersions.Order order = TopicVersions.check(written);
                String firstRun = written.isEmpty() ? null : written.get(0).producer();
                int resumedFrom = committed.lastId().asInt32().getValue();
                long copiedAgainBelow = written.stream().filter(w -> !w.producer().equals(firstRun))
                        .filter(w -> w.event().op() == Op.READ && w.event().id().isInt32())
                        .mapToInt(w -> w.event().id().asInt32().getValue())
                        .filter(id -> id >= HOT_IDS && id <= resumedFrom - CHUNK).count();
                System.out.printf("FAULTS repair-kill: %d documents, chunks of %d; kill -9 with the repair committed up to _id %d "
                                + "(seen %d before the kill), %d writes by then, %d in all; the restarted task re-copied %d quiet "
                                + "document(s) below its committed chunk; %d copies and %d changes on the topic since the signal, "
                                + "order inversions within a run %d; destination equal%n", EXISTING, CHUNK, resumedFrom,
                        atKill.lastId().asInt32().getValue(), writesAtKill, writer.writes(), copiedAgainBelow, order.copies(),
                        order.changes(), order.inversions());
                assertThat(order.inversions()).as("a copied version after a newer one within a task run").isZero();
                assertThat(copiedAgainBelow).as("the restarted repair starts over instead of going on").isZero();
                for (int i = HOT_IDS; i < EXISTING; i++) {
                    assertThat(order.copied()).as("a quiet document is never copied again (a chunk skipped)").contains(new BsonInt32(i));
                }
            } finally {
                if (killed) {
                    stack.startWorker(); // the tests after this one use the same worker
                }
                P.deleteConnectors(rest);
            }
        }
    }

    private static RepairProgress progress(ConnectRest rest, Namespace ns) {
        Optional<Map<String, Object>> m = rest.sourceOffsetMap(P.sourceConnector(), ns);
        return m.map(SourceOffset::repair).orElse(RepairProgress.NONE);
    }

    /** What the restarted worker will find: the last offset committed for the collection, read from the offsets topic. */
    private static RepairProgress lastCommitted(String bootstrap) {
        List<OffsetsTopic.Committed> all = OffsetsTopic.committed(bootstrap, P.sourceConnector());
        assertThat(all).as("offsets committed before the kill").isNotEmpty();
        return SourceOffset.repair(all.get(all.size() - 1).offset());
    }

    private static RepairProgress awaitProgress(ConnectRest rest, Namespace ns, java.util.function.Predicate<RepairProgress> ok, String what) {
        return Waits.until(Duration.ofMinutes(3), Duration.ofMillis(200), () -> progress(rest, ns), ok,
                last -> "timed out after 3 minutes waiting for " + what + " in the committed offset; last progress: " + last);
    }

    private static List<String> differences(Map<BsonValue, BsonDocument> expected, MongoFixture destination) {
        List<String> diffs = new ArrayList<>();
        Map<BsonValue, RawBsonDocument> actual = new HashMap<>();
        for (RawBsonDocument d : P.destCollection(destination.client()).withDocumentClass(RawBsonDocument.class).find()) {
            actual.put(d.get("_id"), d);
        }
        expected.forEach((id, doc) -> {
            if (!doc.equals(actual.get(id))) {
                diffs.add(id.toString());
            }
        });
        actual.keySet().stream().filter(id -> !expected.containsKey(id)).forEach(id -> diffs.add("extra " + id));
        return diffs;
    }

    private static void await(String what, Duration timeout, java.util.function.BooleanSupplier done) {
        Waits.until(timeout, Duration.ofMillis(200), done::getAsBoolean, Boolean::booleanValue,
                x -> "timed out after " + timeout + " waiting for " + what);
    }
}
