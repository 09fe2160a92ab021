package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.PeerItSupport.Cluster;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.it.support.Waits;
import dev.tideline.peer.ContentHash;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.PeerStamp;
import dev.tideline.verify.cli.VerifyMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * Peer recovery (docs/peer-recovery.md): two converged peers lose their link for longer than the topics' retention and
 * the tombstone TTL. Each cluster goes on capturing its own writes meanwhile (its own source and sink stamp its local
 * writes and keep tombstones of its deletes, on topics the other never reads: the records lost with the retention);
 * some tombstones then expire. The restored link starts its sources from now, so replication alone cannot bring the
 * clusters together: verify --peers --peer-recovery does, deciding each id by the rules, and what it writes on the
 * losing cluster is captured by that cluster's source as the winner's write, which the winner skips as an echo.
 */
class PeerRecoveryIT {
    private static final String COLL = "accounts";
    private static final List<String> COLLS = List.of(COLL);

    /** One case of the rules: the ids it is made on, and the rule, winner and action verify must decide for them. */
    private record Case(String name, List<BsonValue> ids, String rule, String winner, String action) {
    }

    @Test
    void peersApartPastTheTombstoneTtlConvergeAfterVerifyAndRecovery() throws Exception {
        TestStack stack = TestStack.shared();
        Cluster a = Cluster.start("pr", "A");
        Cluster b = Cluster.start("pr", "B");
        List<Cluster> clusters = List.of(a, b);
        List<Cluster> alone = new ArrayList<>();
        List<String> restoredSources = new ArrayList<>();
        try {
            PeerItSupport.startLinks(stack, clusters, COLLS);
            PeerItSupport.workload(a, COLL, 400, 150, 1);
            PeerItSupport.workload(b, COLL, 400, 150, 2);
            for (int i = 0; i < 20; i++) { // ids whose last version each cluster wrote (the workload's are mostly B's, run last)
                for (Cluster c : clusters) {
                    c.coll(COLL).insertOne(new BsonDocument("_id", new BsonString("by-" + c.id() + "-" + i)).append("w",
                            new BsonString(c.id() + "-insert")));
                }
            }
            PeerItSupport.awaitConverged(stack, clusters, COLLS, Duration.ofMinutes(3));
            for (Cluster c : clusters) { // the link breaks
                stack.rest().deleteConnector(c.sink());
                stack.rest().deleteConnector(c.source());
            }
            // each cluster alone: its own source and sink, on topics the other never reads
            for (Cluster c : clusters) {
                alone.add(new Cluster(c.id(), c.mongo(), c.prefix() + "x", c.prefix() + "x-source", c.prefix() + "x-sink"));
            }
            startSources(stack, alone, true);
            startSinks(stack, alone, true);

            // the ids, by the origin of the version both hold now
            Map<String, List<BsonValue>> byOrigin = new HashMap<>();
            for (BsonDocument d : b.coll(COLL).find()) {
                byOrigin.computeIfAbsent(PeerStamp.read(d).origin(), k -> new ArrayList<>()).add(d.get("_id"));
            }
            List<BsonValue> fromA = byOrigin.get("A");
            List<BsonValue> fromB = byOrigin.get("B");
            assertThat(fromA).as("ids last written by A").hasSizeGreaterThan(12);
            assertThat(fromB).as("ids last written by B").hasSizeGreaterThan(12);
            Case bothUpdated = new Case("updated at A, then at B", List.of(fromA.get(0), fromB.get(0), fromB.get(1)), "newer-stamp", "B", "copy");
            Case updatedAtB = new Case("updated at B only", List.of(fromA.get(1), fromB.get(2)), "newer-stamp", "B", "copy");
            Case deletedKept = new Case("deleted at A, tombstone kept", List.of(fromA.get(2), fromB.get(3), fromB.get(4)),
                    "newer-tombstone", "A", "delete");
            Case deletedByOrigin = new Case("deleted at A, which wrote it; tombstone expired", List.of(fromA.get(3), fromA.get(4),
                    fromA.get(5)), "deleted-by-origin", "A", "delete");
            Case deletedAmbiguous = new Case("deleted at A, written by B; tombstone expired", List.of(fromB.get(5), fromB.get(6)),
                    "ambiguous", "B", "copy");
            Case insertedAtB = new Case("inserted at B", List.of(new BsonString("new-at-b-0"), new BsonString("new-at-b-1")),
                    "ambiguous", "B", "copy");
            Case updateThenDelete = new Case("updated at A, then deleted at B", List.of(fromA.get(6), fromB.get(7)),
                    "newer-tombstone", "B", "delete");
            Case deleteThenUpdate = new Case("deleted at B, then updated at A", List.of(fromA.get(7), fromB.get(8)),
                    "newer-than-tombstone", "A", "copy");
            Case localAfter = new Case("updated at A with nothing running (never stamped)", List.of(fromA.get(8), fromB.get(9)),
                    "local-write-after", "A", "copy");
            List<Case> cases = List.of(bothUpdated, updatedAtB, deletedKept, deletedByOrigin, deletedAmbiguous, insertedAtB,
                    updateThenDelete, deleteThenUpdate, localAfter);

            // the first writes, then the later ones over a second after (versions are cluster times, in seconds)
            bothUpdated.ids().forEach(id -> set(a, id, "A-first"));
            updatedAtB.ids().forEach(id -> set(b, id, "B-only"));
            deletedKept.ids().forEach(id -> a.coll(COLL).deleteOne(Filters.eq("_id", id)));
            deletedByOrigin.ids().forEach(id -> a.coll(COLL).deleteOne(Filters.eq("_id", id)));
            deletedAmbiguous.ids().forEach(id -> a.coll(COLL).deleteOne(Filters.eq("_id", id)));
            insertedAtB.ids().forEach(id -> b.coll(COLL).insertOne(new BsonDocument("_id", id).append("w", new BsonString("B-new"))));
            updateThenDelete.ids().forEach(id -> set(a, id, "A-before-delete"));
            deleteThenUpdate.ids().forEach(id -> b.coll(COLL).deleteOne(Filters.eq("_id", id)));
            Waits.pause(Duration.ofMillis(1500), "the later writes' cluster time is a second later");
            bothUpdated.ids().forEach(id -> set(b, id, "B-later"));
            updateThenDelete.ids().forEach(id -> b.coll(COLL).deleteOne(Filters.eq("_id", id)));
            deleteThenUpdate.ids().forEach(id -> set(a, id, "A-after-delete"));

            // each cluster's own sink stamps its local writes and keeps tombstones of its deletes
            awaitStampedAlone(a, List.of(bothUpdated, deleteThenUpdate), List.of(deletedKept, deletedByOrigin, deletedAmbiguous));
            awaitStampedAlone(b, List.of(bothUpdated, updatedAtB, insertedAtB), List.of(updateThenDelete, deleteThenUpdate));
            for (Cluster c : alone) {
                stack.rest().deleteConnector(c.sink());
                stack.rest().deleteConnector(c.source());
                statuses(c).deleteOne(Filters.eq("_id", c.sink())); // its last status says nothing about the link
            }
            // the TTL passes for some tombstones; a local write made while nothing runs is never stamped
            for (BsonValue id : concat(deletedByOrigin.ids(), deletedAmbiguous.ids())) {
                assertThat(tombstones(a).deleteOne(Filters.eq("_id", PeerCollections.tombstoneKey(COLL, id))).getDeletedCount())
                        .as("A's tombstone of " + id).isEqualTo(1);
            }
            localAfter.ids().forEach(id -> set(a, id, "A-unstamped"));

            // the link is restored from now on: new sources (their history is past the retention), the same sinks later
            List<Cluster> restored = new ArrayList<>();
            for (Cluster c : clusters) {
                restored.add(new Cluster(c.id(), c.mongo(), c.prefix(), c.prefix() + "r-source", c.sink()));
                restoredSources.add(c.prefix() + "r-source");
            }
            Map<String, Integer> topicSizeBefore = new HashMap<>();
            for (Cluster c : clusters) {
                topicSizeBefore.put(c.id(), TopicReader.readAll(stack.bootstrapServers(), c.topic(COLL), Duration.ofSeconds(2)).size());
            }
            startSources(stack, restored, false);

            Path work = Files.createDirectories(Path.of("target", "peer-recovery-it"));
            Path keyFile = Files.writeString(work.resolve("link.properties"), "peer.stamp.key=" + PeerItSupport.STAMP_KEY + "\n");
            long t0 = System.nanoTime();
            Run reported = verify(a, b, work.resolve("report.jsonl"), "--peer-recovery", "report", "--peer-ids", "A,B",
                    "--peer-key-file", keyFile.toString());
            long reportMs = (System.nanoTime() - t0) / 1_000_000;
            System.out.println(reported.out);
            assertThat(reported.exitCode).as(reported.out + reported.err).isEqualTo(1);
            Map<BsonValue, BsonDocument> first = decisions(work.resolve("report-recovery.jsonl"));
            for (Case c : cases) {
                for (BsonValue id : c.ids()) {
                    BsonDocument d = first.get(id);
                    assertThat(d).as(c.name() + " " + id + " decided").isNotNull();
                    assertThat(d.getString("rule").getValue()).as(c.name() + " " + id).isEqualTo(c.rule());
                    if (c.rule().equals("ambiguous")) {
                        assertThat(d.getString("outcome").getValue()).as(c.name() + " " + id).isEqualTo("reported");
                    } else {
                        assertThat(d.getString("winner").getValue()).as(c.name() + " " + id).isEqualTo(c.winner());
                        assertThat(d.getString("action").getValue()).as(c.name() + " " + id).isEqualTo(c.action());
                        assertThat(d.getString("outcome").getValue()).as(c.name() + " " + id).isEqualTo("applied");
                    }
                }
            }
            for (BsonValue id : deletedByOrigin.ids()) { // the delete given a new version is kept on both clusters
                for (Cluster c : clusters) {
                    assertThat(tombstones(c).countDocuments(Filters.eq("_id", PeerCollections.tombstoneKey(COLL, id))))
                            .as(c.id() + " keeps the tombstone of " + id).isOne();
                }
            }
            int decided = cases.stream().mapToInt(c -> c.ids().size()).sum();
            List<BsonValue> unexpected = new ArrayList<>(first.keySet());
            cases.forEach(c -> unexpected.removeAll(c.ids()));
            assertThat(unexpected).as(() -> "one decision per differing id, nothing else; the others: "
                    + unexpected.stream().map(id -> first.get(id).toJson()).toList() + PeerItSupport.history(stack, clusters, concat(clusters, alone), COLL, unexpected)).isEmpty();
            assertThat(first).hasSize(decided);
            assertThat(reported.out).contains("ambiguous " + (deletedAmbiguous.ids().size() + insertedAtB.ids().size()) + " reported");

            long t1 = System.nanoTime();
            Run copied = verify(a, b, work.resolve("copy.jsonl"), "--peer-recovery", "copy", "--peer-ids", "A,B",
                    "--peer-key-file", keyFile.toString());
            long copyMs = (System.nanoTime() - t1) / 1_000_000;
            System.out.println(copied.out);
            Map<BsonValue, BsonDocument> second = decisions(work.resolve("copy-recovery.jsonl"));
            List<BsonValue> ambiguous = concat(deletedAmbiguous.ids(), insertedAtB.ids());
            assertThat(second.keySet()).as("only the ambiguous ids were left").containsExactlyInAnyOrderElementsOf(ambiguous);
            second.values().forEach(d -> assertThat(d.getString("outcome").getValue() + " " + d.getString("winner").getValue())
                    .as(d.toJson()).isEqualTo("applied B"));
            Run equal = verify(a, b, work.resolve("after.jsonl"));
            assertThat(equal.exitCode).as(equal.out + equal.err).isZero();

            // what the recovery wrote on each losing cluster was captured by its source as the WINNER's write
            Map<String, String> originOf = new LinkedHashMap<>(); // "loser id" -> origin emitted
            int emittedRepairs = 0;
            for (Case c : cases) {
                String loser = c.winner().equals("A") ? "B" : "A";
                Cluster l = loser.equals("A") ? a : b;
                for (BsonValue id : c.ids()) {
                    List<String> origins = originsEmitted(stack, l, topicSizeBefore.get(loser), id);
                    assertThat(origins).as(c.name() + " " + id + " emitted by " + loser).isNotEmpty().allMatch(c.winner()::equals);
                    emittedRepairs += origins.size();
                    originOf.put(loser + " " + id, origins.toString());
                }
            }

            startSinks(stack, clusters, false);
            Duration converged = PeerItSupport.awaitConverged(stack, clusters, COLLS, Duration.ofMinutes(2));
            long echoes = PeerItSupport.counter(a, "echoesSkipped") + PeerItSupport.counter(b, "echoesSkipped");
            assertThat(echoes).as("the winners skipped the repaired writes as echoes").isGreaterThanOrEqualTo(emittedRepairs);
            assertThat(PeerItSupport.contentDifferences(clusters, COLL)).isEmpty();
            // and the restored link replicates as before
            PeerItSupport.workload(a, COLL, 150, 150, 3);
            PeerItSupport.workload(b, COLL, 150, 150, 4);
            Duration again = PeerItSupport.awaitConverged(stack, clusters, COLLS, Duration.ofMinutes(3));
            Run last = verify(a, b, work.resolve("last.jsonl"));
            assertThat(last.exitCode).as(last.out + last.err).isZero();
            System.out.printf("[peer] recovery: %d ids differed after the outage; first run (report) %d ms, second run (copy) %d ms; "
                            + "%d repaired writes emitted by the losers' sources, all with the winner's origin; %d echoes skipped "
                            + "(heartbeats included); equal %d ms after the sinks restarted; converged again %d ms after 2 x 150 "
                            + "writes%n%s%n", decided, reportMs, copyMs, emittedRepairs, echoes, converged.toMillis(),
                    again.toMillis(), reported.out + copied.out);
        } finally {
            for (Cluster c : alone) {
                stack.rest().deleteConnector(c.sink());
                stack.rest().deleteConnector(c.source());
            }
            restoredSources.forEach(s -> stack.rest().deleteConnector(s));
            PeerItSupport.stopLinks(stack, clusters);
        }
    }

    private static void set(Cluster c, BsonValue id, String tag) {
        assertThat(c.coll(COLL).updateOne(Filters.eq("_id", id), Updates.combine(Updates.set("w", new BsonString(tag)),
                Updates.set("v", new BsonInt64(System.nanoTime())))).getModifiedCount()).as(c.id() + " " + id).isEqualTo(1);
    }

    private static <T> List<T> concat(List<T> x, List<T> y) {
        List<T> out = new ArrayList<>(x);
        out.addAll(y);
        return out;
    }

    /**
     * Sources with the link's settings, streaming from now (initial.sync=latest: nothing copied, no history).
     *
     * @param newTopics whether their topics are to be created (else the link's, which exist)
     */
    private static void startSources(TestStack stack, List<Cluster> clusters, boolean newTopics) {
        for (Cluster c : clusters) {
            for (String coll : newTopics ? List.of(COLL, PeerItSupport.HEARTBEATS) : List.<String>of()) {
                stack.createTopic(c.topic(coll), 1);
            }
            Map<String, String> source = SourceItSupport.sourceConfig(c.mongo().uri(), PeerItSupport.DB, c.prefix(), ValueFormat.BSON, 1);
            source.put("peer.cluster.id", c.id());
            source.put("peer.stamp.key", PeerItSupport.STAMP_KEY);
            source.put("collection.include", PeerItSupport.DB + "\\." + COLL + "," + PeerItSupport.DB + "\\." + PeerItSupport.HEARTBEATS);
            source.put("initial.sync", "latest");
            stack.rest().putConnector(c.source(), source);
        }
        for (Cluster c : clusters) {
            stack.rest().awaitRunning(c.source(), 1, Duration.ofSeconds(90));
            // streaming from the instant it keeps there: writes after this are captured
            Waits.until("the start of " + c.source(), Duration.ofSeconds(60), Duration.ofMillis(200), () -> c.mongo().client()
                    .getDatabase(PeerItSupport.DB).getCollection("_tideline_starts").countDocuments(Filters.eq("_id", c.source())),
                    n -> n > 0);
        }
    }

    /** @param alone each sink reads its own cluster's topics only (the link is down); else every cluster's */
    private static void startSinks(TestStack stack, List<Cluster> clusters, boolean alone) {
        for (Cluster c : clusters) {
            List<String> topics = new ArrayList<>();
            for (Cluster from : alone ? List.of(c) : clusters) {
                topics.add(from.topic(COLL));
                topics.add(from.topic(PeerItSupport.HEARTBEATS));
            }
            stack.rest().putConnector(c.sink(), PeerItSupport.sinkConfig(c, String.join(",", topics)));
        }
        for (Cluster c : clusters) {
            stack.rest().awaitRunning(c.sink(), 1, Duration.ofSeconds(90));
        }
    }

    /** Waits until the cluster's own sink has stamped these writes and kept tombstones of these deletes. */
    private static void awaitStampedAlone(Cluster c, List<Case> written, List<Case> deleted) {
        Waits.until("the local sink of " + c.id() + " stamped its writes and kept its tombstones", Duration.ofMinutes(2),
                Duration.ofMillis(300), () -> {
                    List<String> waiting = new ArrayList<>();
                    for (Case k : written) {
                        for (BsonValue id : k.ids()) {
                            BsonDocument d = c.coll(COLL).find(Filters.eq("_id", id)).first();
                            PeerStamp s = d == null ? null : PeerStamp.read(d);
                            if (d != null && (s == null || !s.hash().equals(ContentHash.of(d)) || !s.origin().equals(c.id()))) {
                                waiting.add("stamp " + id);
                            }
                        }
                    }
                    for (Case k : deleted) {
                        for (BsonValue id : k.ids()) {
                            if (tombstones(c).countDocuments(Filters.eq("_id", PeerCollections.tombstoneKey(COLL, id))) == 0) {
                                waiting.add("tombstone " + id);
                            }
                        }
                    }
                    return waiting;
                }, List::isEmpty);
    }

    private static MongoCollection<BsonDocument> tombstones(Cluster c) {
        return c.mongo().client().getDatabase(PeerItSupport.DB).getCollection(PeerCollections.TOMBSTONES, BsonDocument.class);
    }

    private static MongoCollection<BsonDocument> statuses(Cluster c) {
        return c.mongo().client().getDatabase(PeerItSupport.DB).getCollection(PeerCollections.STATUS, BsonDocument.class);
    }

    /** The origins of the records {@code c}'s source emitted for {@code id} after the first {@code skip} records of its topic. */
    private static List<String> originsEmitted(TestStack stack, Cluster c, int skip, BsonValue id) {
        List<String> out = new ArrayList<>();
        List<ConsumerRecord<byte[], byte[]>> all = TopicReader.readAll(stack.bootstrapServers(), c.topic(COLL), Duration.ofSeconds(2));
        for (ConsumerRecord<byte[], byte[]> r : all.subList(skip, all.size())) {
            if (SourceItSupport.isChange(r)) {
                ChangeEvent e = SourceItSupport.decode(r, true);
                if (e.id().equals(id)) {
                    out.add(String.valueOf(SourceItSupport.header(r, EventHeaders.ORIGIN)));
                }
            }
        }
        return out;
    }

    private static Map<BsonValue, BsonDocument> decisions(Path file) throws Exception {
        Map<BsonValue, BsonDocument> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            BsonDocument d = BsonDocument.parse(line);
            if (d.getString("collection").getValue().endsWith("." + COLL)) {
                out.put(d.get("id"), d);
            }
        }
        return out;
    }

    private record Run(int exitCode, String out, String err) {
    }

    private static Run verify(Cluster first, Cluster second, Path report, String... more) {
        List<String> args = new ArrayList<>(List.of("--source", first.mongo().uri(), "--destination", second.mongo().uri(), "--peers",
                "--database", PeerItSupport.DB, "--recheck-delay", "1", "--report", report.toString(),
                // the link's heartbeats: each cluster writes its own
                "--exclude", java.util.regex.Pattern.quote(PeerItSupport.DB + "." + PeerItSupport.HEARTBEATS)));
        args.addAll(List.of(more));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = VerifyMain.run(args.toArray(String[]::new), Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
