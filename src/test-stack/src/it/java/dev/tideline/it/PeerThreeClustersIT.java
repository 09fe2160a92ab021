package dev.tideline.it;

import static dev.tideline.it.PeerItSupport.awaitConverged;
import static dev.tideline.it.PeerItSupport.counter;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.it.PeerItSupport.Cluster;
import dev.tideline.it.PeerItSupport.Emitted;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three clusters in a full mesh over the topics (each peer sink reads all three sources): every write
 * reaches each cluster first hand and again through the third cluster's re-emission, and is applied
 * exactly once; a concurrent random workload converges.
 */
class PeerThreeClustersIT {
    private static final int INSERTS_PER_CLUSTER = Integer.getInteger("peer.it.mesh.inserts", 300);
    private static final int OPS_PER_CLUSTER = Integer.getInteger("peer.it.mesh.ops", 1_500);
    private static final Duration CONVERGE = Duration.ofSeconds(240);

    private static TestStack stack;
    private static List<Cluster> clusters;

    @BeforeAll
    static void start() {
        stack = TestStack.shared();
        clusters = List.of(Cluster.start("p3", "A"), Cluster.start("p3", "B"), Cluster.start("p3", "C"));
        PeerItSupport.startLinks(stack, clusters, List.of("inserts", "mixed"));
    }

    @AfterAll
    static void stop() {
        if (clusters != null) {
            PeerItSupport.stopLinks(stack, clusters);
        }
    }

    @Test
    void everyWriteIsAppliedExactlyOncePerClusterAndAConcurrentWorkloadConverges() throws Exception {
        List<CompletableFuture<Void>> writers = new ArrayList<>();
        for (Cluster c : clusters) {
            writers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < INSERTS_PER_CLUSTER; i++) {
                    String tag = c.id() + "-" + i;
                    c.coll("inserts").insertOne(new BsonDocument("_id", new BsonString(tag)).append("w", new BsonString(tag)));
                }
            }));
        }
        CompletableFuture.allOf(writers.toArray(new CompletableFuture[0])).get();
        Duration inserts = awaitConverged(stack, clusters, List.of("inserts"), CONVERGE);
        assertThat(PeerItSupport.snapshot(clusters.get(0), "inserts")).hasSize(3 * INSERTS_PER_CLUSTER);
        for (Cluster y : clusters) {
            Emitted e = PeerItSupport.emitted(stack, y, "inserts");
            for (Cluster x : clusters) {
                long once = e.tagCounts().entrySet().stream().filter(t -> t.getKey().startsWith(x.id() + "-") && t.getValue() == 1).count();
                assertThat(once).as(x.id() + "'s inserts emitted exactly once by " + y.id()).isEqualTo(INSERTS_PER_CLUSTER);
            }
            assertThat(e.misattributed()).isEmpty();
        }
        print("inserts: " + (3 * INSERTS_PER_CLUSTER) + " (" + INSERTS_PER_CLUSTER + " per cluster) converged in " + inserts.toMillis()
                + " ms; each applied exactly once on each other cluster");

        List<CompletableFuture<Map<String, Integer>>> mixed = new ArrayList<>();
        long seed = 100;
        for (Cluster c : clusters) {
            long s = seed++;
            mixed.add(CompletableFuture.supplyAsync(() -> PeerItSupport.workload(c, "mixed", OPS_PER_CLUSTER, 200, s)));
        }
        List<Map<String, Integer>> ops = new ArrayList<>();
        for (CompletableFuture<Map<String, Integer>> f : mixed) {
            ops.add(f.get());
        }
        Duration converge = awaitConverged(stack, clusters, List.of("mixed"), CONVERGE);
        print("mixed workload " + ops + " converged " + converge.toMillis() + " ms after the writes stopped, "
                + PeerItSupport.snapshot(clusters.get(0), "mixed").size() + " documents on each cluster");
        for (Cluster c : clusters) {
            Emitted e = PeerItSupport.emitted(stack, c, "mixed");
            print(c.id() + " emitted " + e.records() + " by origin " + e.byOrigin() + "; sink " + PeerItSupport.statuses(c).get(0).getDocument("counters").toJson());
            assertThat(e.misattributed()).isEmpty();
            for (Cluster x : clusters) {
                if (x != c) {
                    print(x.id() + "'s records applied twice with the same version on " + c.id() + ": " + e.repeatedVersions(x.id()));
                    assertThat(e.repeatedVersions(x.id())).as(x.id() + "'s records applied more than once on " + c.id()).isEmpty();
                }
            }
            // A cluster's own record is applied only to correct a peer's older write that landed here before this
            // cluster's sink had read its own newer local write (the race PeerReplicationIT bounds the same way: an
            // application's writes within the round trip of the sink's write); the clusters converge either way (above).
            long ownApplied = counter(c, "appliedByOrigin." + c.id());
            print(c.id() + ": own records applied to correct an older peer write that landed first: " + ownApplied
                    + ", undone resurrections: " + counter(c, "decisions.undo_resurrection"));
            assertThat(ownApplied).as(c.id() + "'s own records applied on " + c.id()).isLessThanOrEqualTo(2);
            assertThat(counter(c, "decisions.duplicate")).as("re-emissions by the third cluster recognised as duplicates").isPositive();
            assertThat(PeerItSupport.conflictDocuments(c)).isEqualTo(counter(c, "conflictsResolved"));
        }
    }

    private static void print(String line) {
        System.out.println("[peer-mesh] " + line);
    }
}
