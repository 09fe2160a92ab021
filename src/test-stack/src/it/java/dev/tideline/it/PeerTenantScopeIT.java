package dev.tideline.it;

import static dev.tideline.it.PeerItSupport.counter;
import static dev.tideline.it.PeerItSupport.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.model.Filters;
import dev.tideline.it.PeerItSupport.Cluster;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A link with a tenant scope: B's sink carries only tenant "acme" (peer.tenants), A's sink every tenant;
 * both sources take the tenant from the field {@code t}.
 */
class PeerTenantScopeIT {
    private static TestStack stack;
    private static Cluster a;
    private static Cluster b;

    @BeforeAll
    static void start() {
        stack = TestStack.shared();
        a = Cluster.start("pt", "A");
        b = Cluster.start("pt", "B");
        PeerItSupport.startLinks(stack, List.of(a, b), List.of("tenants"), (c, source) -> source.put("tenant.field", "t"),
                (c, sink) -> {
                    if (c == b) {
                        sink.put("peer.tenants", "acme");
                    }
                });
    }

    @AfterAll
    static void stop() {
        if (a != null && b != null) {
            PeerItSupport.stopLinks(stack, List.of(a, b));
        }
    }

    @Test
    void aLinkCarriesOnlyTheDocumentsOfItsTenants() {
        for (String id : List.of("acme-1", "acme-2", "globex-1", "globex-2", "none-1")) {
            BsonDocument d = new BsonDocument("_id", new BsonString("A-" + id)).append("w", new BsonString(id));
            if (!id.startsWith("none")) {
                d.append("t", new BsonString(id.substring(0, id.indexOf('-'))));
            }
            a.coll("tenants").insertOne(d);
        }
        b.coll("tenants").insertOne(new BsonDocument("_id", new BsonString("B-globex-1")).append("t", new BsonString("globex")));
        a.coll("tenants").deleteOne(Filters.eq("_id", "A-acme-2"));

        SinkItSupport.await("A holds B's document (A's sink carries every tenant)", Duration.ofSeconds(60),
                () -> ids(a).contains("B-globex-1"));
        SinkItSupport.await("B holds A's acme document, and A's delete of the other", Duration.ofSeconds(60),
                () -> ids(b).equals(Set.of("A-acme-1", "B-globex-1")) && PeerItSupport.queued(b) == 0
                        && counter(b, "outOfScope") >= 3);
        print("A " + ids(a) + ", B " + ids(b) + "; B's sink left out " + counter(b, "outOfScope") + " record(s) of other tenants");
        assertThat(ids(b)).as("B carries only acme from A").containsExactlyInAnyOrder("A-acme-1", "B-globex-1");
        assertThat(ids(a)).containsExactlyInAnyOrder("A-acme-1", "A-globex-1", "A-globex-2", "A-none-1", "B-globex-1");
        assertThat(counter(b, "outOfScope")).as("A's globex and tenant-less writes left out on B").isEqualTo(3);
        assertThat(counter(a, "outOfScope")).isZero();
    }

    private static Set<String> ids(Cluster c) {
        Set<String> out = new TreeSet<>();
        for (BsonValue id : snapshot(c, "tenants").keySet()) {
            out.add(id.asString().getValue());
        }
        return out;
    }

    private static void print(String line) {
        System.out.println("[peer-tenants] " + line);
    }
}
