package dev.tideline.it;

import static dev.tideline.it.PeerItSupport.awaitConverged;
import static dev.tideline.it.PeerItSupport.conflictDocuments;
import static dev.tideline.it.PeerItSupport.counter;
import static dev.tideline.it.PeerItSupport.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Updates;
import dev.tideline.it.PeerItSupport.Cluster;
import dev.tideline.it.PeerItSupport.Emitted;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import dev.tideline.it.support.Waits;

/**
 * Two clusters A and B kept identical through the same topics: a peer source and a peer sink on each,
 * on the real broker and worker with the built plugin, two mongo-java-servers with oplog.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PeerReplicationIT {
    private static final int OPS_PER_CLUSTER = Integer.getInteger("peer.it.ops", 10_000);
    private static final int IDS = Integer.getInteger("peer.it.ids", 500);
    private static final List<String> COLLS = List.of("docs", "races", "stopped", "held", "heartbeats", "gap", "forged");
    private static final Duration CONVERGE = Duration.ofSeconds(240);

    private static TestStack stack;
    private static Cluster a;
    private static Cluster b;

    @BeforeAll
    static void start() {
        stack = TestStack.shared();
        a = Cluster.start("p2", "A");
        b = Cluster.start("p2", "B");
        PeerItSupport.startLinks(stack, List.of(a, b), COLLS, (c, source) -> { }, (c, sink) -> {
            sink.put("peer.heartbeat.namespace", PeerItSupport.DB + ".heartbeats");
            sink.put("peer.heartbeat.interval.ms", "500");
            sink.put("peer.lag.degraded.ms", "8000");
        });
    }

    @AfterAll
    static void stop() {
        if (a != null && b != null) {
            PeerItSupport.stopLinks(stack, List.of(a, b));
        }
    }

    private static void print(String line) {
        System.out.println("[peer] " + line);
    }

    @Test
    @Order(1)
    void concurrentRandomWorkloadOnBothSidesConvergesWithoutEchoesOrDoubleApplies() throws Exception {
        long started = System.nanoTime();
        CompletableFuture<Map<String, Integer>> onA = CompletableFuture.supplyAsync(() -> PeerItSupport.workload(a, "docs", OPS_PER_CLUSTER, IDS, 11));
        CompletableFuture<Map<String, Integer>> onB = CompletableFuture.supplyAsync(() -> PeerItSupport.workload(b, "docs", OPS_PER_CLUSTER, IDS, 22));
        Map<String, Integer> opsA = onA.get();
        Map<String, Integer> opsB = onB.get();
        Duration writing = Duration.ofNanos(System.nanoTime() - started);
        Duration converge = awaitConverged(stack, List.of(a, b), List.of("docs"), CONVERGE);

        Emitted fromA = PeerItSupport.emitted(stack, a, "docs");
        Emitted fromB = PeerItSupport.emitted(stack, b, "docs");
        long echoesA = counter(a, "echoesSkipped");
        long echoesB = counter(b, "echoesSkipped");
        long resolved = counter(a, "conflictsResolved") + counter(b, "conflictsResolved");
        long recorded = conflictDocuments(a) + conflictDocuments(b);
        print("workload: A " + opsA + ", B " + opsB + " (" + (OPS_PER_CLUSTER * 2) + " writes on " + IDS + " shared ids in "
                + writing.toMillis() + " ms)");
        print("converged " + converge.toMillis() + " ms after the writes stopped; " + snapshot(a, "docs").size() + " documents on each side");
        print("records emitted: A " + fromA.records() + " by origin " + fromA.byOrigin() + ", B " + fromB.records() + " by origin " + fromB.byOrigin());
        print("sink A: " + PeerItSupport.statuses(a).get(0).getDocument("counters").toJson());
        print("sink B: " + PeerItSupport.statuses(b).get(0).getDocument("counters").toJson());
        print("echoes skipped: A " + echoesA + ", B " + echoesB + "; own-origin records applied as content (undone resurrections): A "
                + counter(a, "decisions.undo_resurrection") + ", B " + counter(b, "decisions.undo_resurrection")
                + "; peer changes held for a local delete's record: A " + counter(a, "heldForLocalDelete") + ", B "
                + counter(b, "heldForLocalDelete"));
        print("conflicts resolved " + resolved + ", recorded " + recorded);

        assertThat(fromA.misattributed()).as("records A emitted whose origin is not the cluster that wrote them").isEmpty();
        assertThat(fromB.misattributed()).as("records B emitted whose origin is not the cluster that wrote them").isEmpty();
        // a record of A applied twice on B would show twice on B's topic (each application is a change there)
        print("writes emitted by their origin under two versions (update looked up after a later write) and so applied "
                + "twice on the other side: of A's on B " + fromB.repeatedTags("A") + ", of B's on A " + fromA.repeatedTags("B"));
        // a record (one version of one write) applied twice on B would show twice on B's topic: each application
        // is a change there
        List<String> twiceOnB = fromB.repeatedVersions("A");
        List<String> twiceOnA = fromA.repeatedVersions("B");
        print("records applied twice with the same version: of A's on B " + twiceOnB + fromB.historyOf(twiceOnB) + ", of B's on A "
                + twiceOnA + fromA.historyOf(twiceOnA));
        assertThat(twiceOnB).as("A's records applied more than once on B").isEmpty();
        assertThat(twiceOnA).as("B's records applied more than once on A").isEmpty();
        assertThat(fromA.byOrigin().getOrDefault("B", 0)).as("B's writes applied on A").isPositive();
        assertThat(fromB.byOrigin().getOrDefault("A", 0)).as("A's writes applied on B").isPositive();
        assertThat(echoesA).as("echoes of A's own writes skipped by A's sink").isPositive();
        assertThat(echoesB).as("echoes skipped by B's sink").isPositive();
        assertThat(counter(a, "appliedByOrigin.A")).as("records of origin A applied on A").isZero();
        assertThat(counter(b, "appliedByOrigin.B")).as("records of origin B applied on B").isZero();
        assertThat(recorded).as("conflicts recorded = conflicts resolved").isEqualTo(resolved);
        // Before the local-delete barrier, 80-130 per side at this size. What remains possible is an application's
        // insert and delete within the round trip of the sink's insert (a transaction would close it; 0 in the runs so far).
        assertThat(counter(a, "decisions.undo_resurrection")).as("A's own deletes applied again (undone resurrections)")
                .isLessThanOrEqualTo(2);
        assertThat(counter(b, "decisions.undo_resurrection")).as("B's own deletes applied again (undone resurrections)")
                .isLessThanOrEqualTo(2);
    }

    @Test
    @Order(2)
    void deleteRacingAnOlderUpdateStaysDeletedAndANewerUpdateRacingADeleteSurvives() {
        BsonValue x = new BsonString("x");
        BsonValue y = new BsonString("y");
        a.coll("races").insertOne(new BsonDocument("_id", x).append("w", new BsonString("A-x0")));
        a.coll("races").insertOne(new BsonDocument("_id", y).append("w", new BsonString("A-y0")));
        awaitConverged(stack, List.of(a, b), List.of("races"), CONVERGE);

        // the link is paused both ways so the two writes cannot see each other
        stack.rest().pause(a.sink());
        stack.rest().pause(b.sink());
        awaitState(a.sink(), "PAUSED");
        awaitState(b.sink(), "PAUSED");
        b.coll("races").updateOne(Filters.eq("_id", x), Updates.set("w", "B-x1"));       // older update of x
        Waits.pause(Duration.ofMillis(1_100), "the next writes get a later cluster second on both clusters (a clock margin)");
        a.coll("races").deleteOne(Filters.eq("_id", x));                                  // newer delete of x
        a.coll("races").deleteOne(Filters.eq("_id", y));                                  // older delete of y
        Waits.pause(Duration.ofMillis(1_100), "the next write gets a later cluster second (a clock margin)");
        b.coll("races").updateOne(Filters.eq("_id", y), Updates.set("w", "B-y1"));       // newer update of y
        stack.rest().resume(a.sink());
        stack.rest().resume(b.sink());

        Duration converge = awaitConverged(stack, List.of(a, b), List.of("races"), CONVERGE);
        Map<BsonValue, BsonDocument> onA = snapshot(a, "races");
        Map<BsonValue, BsonDocument> onB = snapshot(b, "races");
        print("races converged in " + converge.toMillis() + " ms: A " + onA.keySet() + ", B " + onB.keySet());
        assertThat(onA).doesNotContainKey(x);
        assertThat(onB).doesNotContainKey(x);
        assertThat(onA.get(y).getString("w").getValue()).isEqualTo("B-y1");
        assertThat(onB.get(y).getString("w").getValue()).isEqualTo("B-y1");
    }

    @Test
    @Order(3)
    void aLinkStoppedForAWhileAndResumedConverges() {
        stack.rest().stop(b.sink()); // A -> B stopped: B's sink reads nothing
        awaitState(b.sink(), "STOPPED");
        Random random = new Random(33);
        for (int i = 0; i < 500; i++) {
            PeerItSupport.write(a.coll("stopped"), new BsonInt32(random.nextInt(100)), "A-s" + i, random);
            PeerItSupport.write(b.coll("stopped"), new BsonInt32(random.nextInt(100)), "B-s" + i, random);
        }
        // a quiet period, not a wait for state: A's sink applies B's writes meanwhile, and the clusters must still differ
        // because nothing of A's reaches B while B's sink is stopped (there is no event for "nothing arrived")
        Waits.quietPeriod(Duration.ofSeconds(3), "B's sink, stopped, applies none of A's writes");
        String whileStopped = PeerItSupport.differences(List.of(a, b), List.of("stopped"));
        assertThat(whileStopped).as("while the link is stopped the clusters differ").isNotEmpty();
        // A's heartbeats no longer come back through B (B's sink does not apply them): A's side of the link says so
        long stoppedAt = System.nanoTime();
        BsonDocument degraded = awaitStatus(a, "not ok while B's sink is stopped", s -> !"ok".equals(s.getString("health").getValue()));
        print("stopped link: A reports " + degraded.getString("health").getValue() + " " + degraded.getArray("reasons") + " "
                + degraded.getArray("details") + " " + Duration.ofNanos(System.nanoTime() - stoppedAt).toMillis()
                + " ms after the writes");
        assertThat(degraded.getArray("reasons")).contains(new BsonString("lag"));
        // B's sink writes nothing while stopped: its last status document expires instead of saying ok
        SinkItSupport.await("B's last status document expired", Duration.ofSeconds(30), () -> PeerItSupport.health(b).startsWith("stale"));
        stack.rest().resume(b.sink());
        Duration converge = awaitConverged(stack, List.of(a, b), List.of("stopped"), CONVERGE);
        print("stopped link: 1000 writes while A->B was stopped; converged " + converge.toMillis() + " ms after resume, "
                + snapshot(a, "stopped").size() + " documents");
    }

    /**
     * B refuses A's write of one document (a unique index on {@code u} that only B has, and a document of B
     * holding that value): B's sink holds it, keeps A's later write of that document behind it, still applies
     * other documents, reports {@code stalled} with the server's reason, and lands the document as soon as the
     * refusal stops. Nothing is skipped.
     */
    @Test
    @Order(4)
    void aWriteTheDestinationRefusesIsHeldInOrderReportedAsStalledAndLandsOnceAccepted() {
        b.coll("held").createIndex(Indexes.ascending("u"), new IndexOptions().unique(true));
        b.coll("held").insertOne(new BsonDocument("_id", new BsonString("owner")).append("u", new BsonInt32(1)));
        awaitConverged(stack, List.of(a, b), List.of("held"), CONVERGE);

        long refusedAt = System.nanoTime();
        a.coll("held").insertOne(new BsonDocument("_id", new BsonString("h")).append("u", new BsonInt32(1)).append("w", new BsonString("A-h1")));
        a.coll("held").updateOne(Filters.eq("_id", "h"), Updates.set("w", "A-h2"));   // waits behind the refused write
        a.coll("held").insertOne(new BsonDocument("_id", new BsonString("free")).append("u", new BsonInt32(2)));
        BsonDocument stalled = awaitStatus(b, "stalled with A's two writes of h waiting",
                s -> "stalled".equals(s.getString("health").getValue()) && s.getInt32("queued").getValue() == 2);
        String details = stalled.getArray("details").toString();
        print("B refuses A's write of h: health " + stalled.getString("health").getValue() + " " + stalled.getArray("reasons")
                + " " + details + " after " + Duration.ofNanos(System.nanoTime() - refusedAt).toMillis() + " ms");
        assertThat(stalled.getArray("reasons")).contains(new BsonString("held-records"));
        assertThat(details).contains("{\"_id\": \"h\"}").contains("refused by the destination").contains("11000");
        SinkItSupport.await("B applies A's other document while h is held", Duration.ofSeconds(30),
                () -> b.coll("held").countDocuments(Filters.eq("_id", "free")) == 1);
        assertThat(b.coll("held").countDocuments(Filters.eq("_id", "h"))).as("h is held on B, not skipped past").isZero();

        long acceptedAt = System.nanoTime();
        b.coll("held").updateOne(Filters.eq("_id", "owner"), Updates.set("u", 3));  // the refusal stops
        Duration landed = awaitConverged(stack, List.of(a, b), List.of("held"), CONVERGE);
        assertThat(b.coll("held").find(Filters.eq("_id", "h")).first().getString("w").getValue())
                .as("A's later write of h landed after the held one, not instead of a skipped one").isEqualTo("A-h2");
        awaitStatus(b, "ok", s -> "ok".equals(s.getString("health").getValue()));
        print("h landed on B " + Duration.ofNanos(System.nanoTime() - acceptedAt).toMillis() + " ms after the refusal stopped "
                + "(converged in " + landed.toMillis() + " ms); B healthy again");
    }

    /** Each sink's heartbeat crosses the link and comes back: the round-trip lag per link, in the status document. */
    @Test
    @Order(5)
    void heartbeatsCrossingTheLinkGiveEachSideItsRoundTripLag() {
        BsonDocument onA = awaitStatus(a, "a round trip through B", s -> s.getDocument("roundTripLagMs").containsKey("B"));
        BsonDocument onB = awaitStatus(b, "a round trip through A", s -> s.getDocument("roundTripLagMs").containsKey("A"));
        long ab = onA.getDocument("roundTripLagMs").getInt64("B").getValue();
        long ba = onB.getDocument("roundTripLagMs").getInt64("A").getValue();
        print("round-trip lag from heartbeats: A -> B -> A " + ab + " ms, B -> A -> B " + ba + " ms; health A "
                + onA.getString("health").getValue() + ", B " + onB.getString("health").getValue());
        assertThat(ab).isPositive().isLessThan(30_000);
        assertThat(ba).isPositive().isLessThan(30_000);
        assertThat(PeerItSupport.snapshot(b, "heartbeats")).as("A's heartbeat document was applied on B").containsKey(new BsonString("A"));
    }

    /**
     * The race behind "undone resurrections": B re-inserts and deletes a document while its sink has not read
     * B's own records of that (here: B's source is paused), and A's OLDER write of the document reaches B's sink.
     * B's sink finds the document absent with no tombstone; its change stream shows the local delete, so A's
     * write waits for B's record of it instead of re-creating the document for a moment, and then loses to it.
     */
    @Test
    @Order(6)
    void aPeerWriteWaitsForTheRecordOfANewerLocalDeleteInsteadOfResurrectingTheDocument() {
        BsonValue z = new BsonString("z");
        a.coll("gap").insertOne(new BsonDocument("_id", new BsonString("warm")).append("w", new BsonString("A-warm")));
        awaitConverged(stack, List.of(a, b), List.of("gap"), CONVERGE); // B's sink has written to gap: its watcher is open

        stack.rest().pause(b.sink());
        stack.rest().pause(b.source());
        awaitState(b.sink(), "PAUSED");
        awaitState(b.source(), "PAUSED");
        a.coll("gap").insertOne(new BsonDocument("_id", z).append("w", new BsonString("A-z1")));   // older write of z
        a.coll("gap").insertOne(new BsonDocument("_id", new BsonString("after")).append("w", new BsonString("A-after")));
        Waits.pause(Duration.ofMillis(1_100), "B's writes get a later cluster second (a clock margin)");
        b.coll("gap").insertOne(new BsonDocument("_id", z).append("w", new BsonString("B-z1")));
        b.coll("gap").deleteOne(Filters.eq("_id", z));                                            // newer local delete
        // the current task's counters (an earlier test stopped B's sink: the statuses of its earlier task stay)
        BsonDocument before = awaitStatus(b, "reporting", s -> true).getDocument("counters");
        long undoneBefore = counter(b, "decisions.undo_resurrection");
        stack.rest().resume(b.sink());

        // A's next write lands on B: B's sink has read A's write of z (one partition, in order)
        SinkItSupport.await("A's write after z applied on B", Duration.ofSeconds(30),
                () -> b.coll("gap").countDocuments(Filters.eq("_id", "after")) == 1);
        // a negative claim (A's older write does not resurrect z): watched for a bounded 2 s, there is no event to wait for
        Waits.holdsThroughout("z absent on B", Duration.ofSeconds(2), Duration.ofMillis(50),
                () -> assertThat(b.coll("gap").countDocuments(Filters.eq("_id", z))).as("z on B while B's own records of its delete "
                        + "are not read: A's older write resurrected it").isZero());
        // the status document is rewritten every 2 s: wait for the one that counts the hold
        BsonDocument holding = awaitStatus(b, "counting A's write of z as held for B's own record of its delete",
                s -> s.getDocument("counters").getInt64("heldForLocalDelete").getValue()
                        > before.getInt64("heldForLocalDelete").getValue());
        print("gap: A's older write of z held on B (queued " + holding.getInt32("queued").getValue() + ", health "
                + holding.getString("health").getValue() + "); z absent on B for 2 s while B's own records were not read");

        long resumedAt = System.nanoTime();
        stack.rest().resume(b.source());
        Duration converge = awaitConverged(stack, List.of(a, b), List.of("gap"), CONVERGE);
        print("gap: converged " + converge.toMillis() + " ms after B's source resumed ("
                + Duration.ofNanos(System.nanoTime() - resumedAt).toMillis() + " ms); z on A " + snapshot(a, "gap").containsKey(z)
                + ", on B " + snapshot(b, "gap").containsKey(z));
        assertThat(snapshot(a, "gap")).as("B's newer delete wins on A").doesNotContainKey(z);
        assertThat(snapshot(b, "gap")).as("B's newer delete wins on B").doesNotContainKey(z);
        assertThat(counter(b, "decisions.undo_resurrection")).as("B's own delete was not applied a second time")
                .isEqualTo(undoneBefore);
    }

    /**
     * Applications on A write stamps and tombstones of their own: a copy of B's stamp (content and all) over A's copy
     * of a document, a stamp naming B with a matching hash but no valid MAC, one with a time at the end of the clock,
     * and a tombstone naming B before deleting a document. Each is an ordinary local write (or delete) of A: B
     * applies it (none is skipped as an echo of B's own write) and both clusters converge.
     */
    @Test
    @Order(7)
    void forgedStampsAndTombstonesWrittenByAnApplicationAreReplicatedLikeAnyWrite() {
        for (String id : List.of("copied", "named", "future", "tomb")) {
            a.coll("forged").insertOne(new BsonDocument("_id", new BsonString(id)).append("w", new BsonString("A-" + id)));
        }
        b.coll("forged").insertOne(new BsonDocument("_id", new BsonString("source")).append("w", new BsonString("B-source")));
        awaitConverged(stack, List.of(a, b), List.of("forged"), CONVERGE);

        // 1. B's document "source", stamp and all, copied over A's "copied" (another document: the _id differs)
        BsonDocument fromB = b.coll("forged").find(Filters.eq("_id", "source")).first();
        BsonDocument copied = fromB.clone();
        copied.put("_id", new BsonString("copied"));
        a.coll("forged").replaceOne(Filters.eq("_id", "copied"), copied);
        // 2. a stamp naming B, its hash matching the new content, B's key id and MAC pasted in
        BsonDocument named = new BsonDocument("_id", new BsonString("named")).append("w", new BsonString("A-named-2"));
        BsonDocument bStamp = fromB.getDocument("_tl");
        named.append("_tl", new BsonDocument("o", new BsonString("B")).append("t", new org.bson.BsonTimestamp((int) (System.currentTimeMillis() / 1000), 1))
                .append("h", new BsonString(dev.tideline.peer.ContentHash.of(named))).append("k", bStamp.get("k")).append("m", bStamp.get("m")));
        a.coll("forged").replaceOne(Filters.eq("_id", "named"), named);
        // 3. a stamp at the last second the clock can hold
        BsonDocument future = new BsonDocument("_id", new BsonString("future")).append("w", new BsonString("A-future-2"));
        future.append("_tl", new BsonDocument("o", new BsonString("B")).append("t", new org.bson.BsonTimestamp(-1, -1))
                .append("h", new BsonString(dev.tideline.peer.ContentHash.of(future))));
        a.coll("forged").replaceOne(Filters.eq("_id", "future"), future);
        // 4. a tombstone naming B (newer than anything), then a local delete: it must not pass for B's delete
        a.mongo().client().getDatabase(PeerItSupport.DB).getCollection(dev.tideline.peer.PeerCollections.TOMBSTONES, BsonDocument.class)
                .insertOne(new BsonDocument("_id", dev.tideline.peer.PeerCollections.tombstoneKey("forged", new BsonString("tomb")))
                        .append("v", new BsonDocument("t", new org.bson.BsonTimestamp((int) (System.currentTimeMillis() / 1000) + 60, 1))
                                .append("o", new BsonString("B"))));
        a.coll("forged").deleteOne(Filters.eq("_id", "tomb"));

        Duration converge = awaitConverged(stack, List.of(a, b), List.of("forged"), CONVERGE);
        Map<BsonValue, BsonDocument> onB = snapshot(b, "forged");
        print("forged stamps: converged " + converge.toMillis() + " ms after the forgeries; on B: "
                + onB.values().stream().map(d -> d.get("_id") + "=" + d.get("w") + " from " + d.getDocument("_tl").get("o")).toList());
        assertThat(onB.get(new BsonString("copied")).getString("w").getValue()).isEqualTo("B-source");
        assertThat(onB.get(new BsonString("copied")).getDocument("_tl").getString("o").getValue()).as("A's write").isEqualTo("A");
        assertThat(onB.get(new BsonString("named")).getString("w").getValue()).isEqualTo("A-named-2");
        assertThat(onB.get(new BsonString("future")).getString("w").getValue()).isEqualTo("A-future-2");
        assertThat(onB.get(new BsonString("future")).getDocument("_tl").getTimestamp("t").getTime())
                .as("labelled by A's clock, not the forged time").isNotEqualTo(-1);
        assertThat(onB).as("A's local delete reached B").doesNotContainKey(new BsonString("tomb"));
    }

    /** The status document of the cluster's current sink task (the latest written) once it satisfies {@code wanted}. */
    private static BsonDocument awaitStatus(Cluster c, String what, java.util.function.Predicate<BsonDocument> wanted) {
        BsonDocument[] found = new BsonDocument[1];
        SinkItSupport.await(c.id() + "'s peer sink " + what, Duration.ofSeconds(30), () -> {
            BsonDocument latest = PeerItSupport.statuses(c).stream()
                    .max(java.util.Comparator.comparingLong(s -> s.getInt64("updatedAt").getValue())).orElse(null);
            found[0] = latest;
            return latest != null && wanted.test(latest);
        });
        return found[0];
    }

    private static void awaitState(String connector, String state) {
        SinkItSupport.await(connector + " " + state, Duration.ofSeconds(60),
                () -> state.equals(stack.rest().statusOrEmpty(connector).path("connector").path("state").asText()));
    }
}
