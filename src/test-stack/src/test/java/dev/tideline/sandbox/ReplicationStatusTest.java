package dev.tideline.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.monitoring.Scrape;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplicationStatusTest {
    private static final Scrape METRICS = Scrape.parse(0, """
            tideline_source_collection_phase{collection="shop.orders",connector="src",phase="backfill",task="0"} 1.0
            tideline_source_collection_lag_seconds{collection="shop.orders",connector="src",task="0"} -0.001
            tideline_source_collection_copy_documents{collection="shop.orders",connector="src",task="0"} 250.0
            tideline_source_collection_copy_estimated_documents{collection="shop.orders",connector="src",task="0"} 1000.0
            tideline_source_collection_repairs_total{collection="shop.orders",connector="src",task="0"} 0.0
            tideline_source_collection_phase{collection="shop.users",connector="src",phase="stream",task="0"} 1.0
            tideline_source_collection_lag_seconds{collection="shop.users",connector="src",task="0"} 1.25
            tideline_source_collection_copy_documents{collection="shop.users",connector="src",task="0"} 40.0
            tideline_source_collection_copy_estimated_documents{collection="shop.users",connector="src",task="0"} 40.0
            tideline_source_collection_repairs_total{collection="shop.users",connector="src",task="0"} 2.0
            tideline_source_collection_repair_documents_copied_total{collection="shop.users",connector="src",task="0"} 7.0
            tideline_source_collection_phase{collection="other.x",connector="another",phase="stream",task="0"} 1.0
            """);

    @Test
    void oneRowPerCollectionOfTheConnectorWithItsProgressCountsAndVerify() {
        ReplicationStatus.Verify verify = new ReplicationStatus.Verify("differs", "2026-12-03T10:00:00Z", List.of("shop.orders: differs (3)"));
        Map<String, Long> counts = Map.of("orders", 1000L, "users", 40L);
        List<ReplicationStatus.Row> rows = ReplicationStatus.rows(METRICS, "src", verify, counts::get, c -> counts.get(c) - 1);
        assertThat(rows).containsExactly(
                new ReplicationStatus.Row("shop.orders", "backfill", -0.001, "copy 25% (250 of 1,000)", 1000, 999,
                        "differs (3) (run of 2026-12-03T10:00:00Z)"),
                new ReplicationStatus.Row("shop.users", "stream", 1.25, "copy 100% (40 of 40); 2 repair(s), 7 documents copied again", 40, 39,
                        "differs (run of 2026-12-03T10:00:00Z)"));
        assertThat(ReplicationStatus.rows(METRICS, "src", ReplicationStatus.Verify.NONE, counts::get, counts::get).get(1).verify())
                .isEqualTo("not run yet");
    }

    @Test
    void jsonQuotesWhatItCarries() {
        String json = ReplicationStatus.json(List.of(new ReplicationStatus.Row("a\"b.c", "stream", Double.NaN, "copy 0", 1, 1, "x\ny")), 5);
        assertThat(json).isEqualTo("{\"at\":5,\"collections\":[{\"collection\":\"a\\\"b.c\",\"phase\":\"stream\",\"lagSeconds\":null,"
                + "\"progress\":\"copy 0\",\"sourceCount\":1,\"destinationCount\":1,\"verify\":\"x\\u000ay\"}]}");
    }
}
