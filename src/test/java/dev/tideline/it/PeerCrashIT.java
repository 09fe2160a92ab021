package dev.tideline.it;

import static dev.tideline.it.PeerItSupport.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.it.PeerItSupport.Cluster;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Peer replication through crashes: both clusters written concurrently on shared ids at a steady rate while
 * the Connect worker running all four connectors is killed with kill -9 at several points. Once the writes
 * stop, both clusters must hold the same documents (stamps aside), and while they differ the link's health
 * must not be {@code ok}.
 */
class PeerCrashIT {
    private static final int OPS_PER_CLUSTER = Integer.getInteger("peer.crash.ops", 6_000);
    private static final int RATE = Integer.getInteger("peer.crash.rate", 300);
    private static final int IDS = Integer.getInteger("peer.crash.ids", 500);
    private static final Duration CONVERGE = Duration.ofSeconds(Integer.getInteger("peer.crash.converge.s", 240));

    private static TestStack stack;
    private static Cluster a;
    private static Cluster b;

    @BeforeAll
    static void start() {
        stack = TestStack.shared();
        a = Cluster.start("pk", "A");
        b = Cluster.start("pk", "B");
        PeerItSupport.startLinks(stack, List.of(a, b), List.of("killed", "heartbeats"), (c, source) -> { }, (c, sink) -> {
            sink.put("peer.heartbeat.namespace", PeerItSupport.DB + ".heartbeats");
            sink.put("peer.heartbeat.interval.ms", "500");
        });
    }

    @AfterAll
    static void stop() {
        if (a != null && b != null) {
            PeerItSupport.stopLinks(stack, List.of(a, b));
        }
    }

    private static void print(String line) {
        System.out.println("[peer-crash] " + line);
    }

    @Test
    void killOfTheWorkerAtSeveralPointsDuringConcurrentWritesConverges() throws Exception {
        long writeMillis = OPS_PER_CLUSTER * 1000L / RATE;
        List<Long> killsAt = List.of(writeMillis / 4, writeMillis * 3 / 4);
        long started = System.nanoTime();
        CompletableFuture<Map<String, Integer>> onA = CompletableFuture.supplyAsync(
                () -> PeerItSupport.pacedWorkload(a, "killed", OPS_PER_CLUSTER, RATE, IDS, 41));
        CompletableFuture<Map<String, Integer>> onB = CompletableFuture.supplyAsync(
                () -> PeerItSupport.pacedWorkload(b, "killed", OPS_PER_CLUSTER, RATE, IDS, 42));
        List<String> kills = new ArrayList<>();
        for (long at : killsAt) {
            PeerItSupport.sleep(Math.max(0, at - Duration.ofNanos(System.nanoTime() - started).toMillis()));
            stack.killWorker();
            kills.add("kill -9 at " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
            stack.startWorker();
            for (Cluster c : List.of(a, b)) {
                stack.rest().awaitRunning(c.source(), 1, Duration.ofSeconds(120));
                stack.rest().awaitRunning(c.sink(), 1, Duration.ofSeconds(120));
            }
        }
        Map<String, Integer> opsA = onA.get();
        Map<String, Integer> opsB = onB.get();
        print("workload: A " + opsA + ", B " + opsB + " at " + RATE + "/s each on " + IDS + " shared ids in "
                + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms; " + kills);
        PeerItSupport.Watch watch = PeerItSupport.watchUntilConverged(stack, List.of(a, b), List.of("killed"), CONVERGE);
        print("after the writes: " + watch);
        if (!watch.converged()) {
            print(PeerItSupport.diagnose(stack, List.of(a, b), "killed", 5));
        }
        assertThat(watch.converged()).as("both clusters equal (stamps aside) within " + CONVERGE + ": " + watch).isTrue();
        assertThat(watch.differedWhileOk()).as("samples where the clusters differed while both sinks reported ok").isEmpty();
        print("converged: " + snapshot(a, "killed").size() + " documents on each side");
    }
}
