package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.it.PeerItSupport.Cluster;
import dev.tideline.it.support.TestStack;
import dev.tideline.peer.PeerStamp;
import dev.tideline.verify.Finding;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.cli.VerifyMain;
import dev.tideline.verify.report.ReportReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;

/**
 * Verify between two peer clusters: after peer replication converged them (both written), they compare
 * equal though each document carries its own cluster's stamp; with the links stopped and both clusters
 * changed by hand, verify lists exactly what differs, and not the documents whose stamp alone differs.
 */
class VerifyPeersIT {
    private static final List<String> COLLS = List.of("accounts");

    @Test
    void peersThatDivergedAreListedStampsAside() throws Exception {
        TestStack stack = TestStack.shared();
        Cluster a = Cluster.start("vp", "A");
        Cluster b = Cluster.start("vp", "B");
        List<Cluster> clusters = List.of(a, b);
        try {
            PeerItSupport.startLinks(stack, clusters, COLLS);
            PeerItSupport.workload(a, "accounts", 400, 150, 1);
            PeerItSupport.workload(b, "accounts", 400, 150, 2);
            Duration converged = PeerItSupport.awaitConverged(stack, clusters, COLLS, Duration.ofMinutes(3));
            // the links stop: what is changed by hand from here stays where it was made
            for (Cluster c : clusters) {
                stack.rest().deleteConnector(c.sink());
                stack.rest().deleteConnector(c.source());
            }
            Path work = Files.createDirectories(Path.of("target", "verify-it"));
            Run equal = verify(a, b, work.resolve("peers-equal.jsonl"));
            assertThat(equal.exitCode).as(equal.out + equal.err).isZero();

            List<BsonValue> ids = new ArrayList<>();
            a.coll("accounts").find().forEach(d -> ids.add(d.get("_id")));
            ids.sort(dev.tideline.mongo.BsonOrder.COMPARATOR);
            assertThat(ids).hasSizeGreaterThan(30);
            Set<String> deletedAtA = new TreeSet<>();
            Set<String> changedAtB = new TreeSet<>();
            Set<String> addedAtA = new TreeSet<>();
            for (int i = 0; i < 3; i++) {
                a.coll("accounts").deleteOne(Filters.eq("_id", ids.get(i)));
                deletedAtA.add(ids.get(i).toString());
            }
            for (int i = 3; i < 5; i++) {
                b.coll("accounts").updateOne(Filters.eq("_id", ids.get(i)), Updates.set("v", 42L));
                changedAtB.add(ids.get(i).toString());
            }
            for (int i = 0; i < 2; i++) {
                BsonValue id = new BsonString("only-at-a-" + i);
                a.coll("accounts").insertOne(new BsonDocument("_id", id).append("w", new BsonString("hand")));
                addedAtA.add(id.toString());
            }
            // only the stamp differs: not a difference between peers
            for (int i = 5; i < 8; i++) {
                b.coll("accounts").updateOne(Filters.eq("_id", ids.get(i)), Updates.set(PeerStamp.FIELD + ".o", "Z"));
            }

            Run diverged = verify(a, b, work.resolve("peers-diverged.jsonl"));
            System.out.println(diverged.out);
            assertThat(diverged.exitCode).as(diverged.err).isEqualTo(1);
            List<Finding> found = new ArrayList<>();
            ReportReader.read(work.resolve("peers-diverged.jsonl"), found::add, r -> { });
            // the first peer (A) is the reference: gone at A is extra at B, added at A is missing at B
            assertThat(ids(found, FindingKind.EXTRA)).isEqualTo(deletedAtA);
            assertThat(ids(found, FindingKind.MISSING)).isEqualTo(addedAtA);
            assertThat(ids(found, FindingKind.DIFFERENT)).isEqualTo(changedAtB);
            assertThat(ids(found, FindingKind.IN_FLIGHT)).isEmpty();
            System.out.printf("VERIFY peers: %d documents per cluster converged in %d ms and compared equal (stamps aside); after the "
                            + "links stopped, %d deleted and %d added at A, %d changed and 3 re-stamped at B: listed exactly%n", ids.size(),
                    converged.toMillis(), deletedAtA.size(), addedAtA.size(), changedAtB.size());
        } finally {
            PeerItSupport.stopLinks(stack, clusters);
        }
    }

    private record Run(int exitCode, String out, String err) {
    }

    private static Run verify(Cluster first, Cluster second, Path report) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = VerifyMain.run(new String[] {"--source", first.mongo().uri(), "--destination", second.mongo().uri(), "--peers",
                "--database", PeerItSupport.DB, "--recheck-delay", "1", "--report", report.toString(),
                // the link's heartbeats: each cluster writes its own, the last ones may not have crossed when the links stop
                "--exclude", java.util.regex.Pattern.quote(PeerItSupport.DB + "." + PeerItSupport.HEARTBEATS)}, Map.of(),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Set<String> ids(List<Finding> findings, FindingKind kind) {
        Set<String> out = new TreeSet<>();
        findings.stream().filter(f -> f.kind() == kind && f.collection().source().coll().equals("accounts"))
                .forEach(f -> out.add(f.id().toString()));
        return out;
    }
}
