package dev.tideline.fanout.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.fanout.kafka.DocumentMemory.Verdict;
import org.junit.jupiter.api.Test;

class DocumentMemoryTest {
    @Test
    void aVersionDeliveredOnceIsRecognisedWhenTheSourceSendsItAgain() {
        DocumentMemory m = new DocumentMemory(100);

        assertThat(m.admit("d1", "acme", 10, 111, false)).isEqualTo(Verdict.DELIVER);
        assertThat(m.admit("d1", "acme", 11, 222, false)).isEqualTo(Verdict.DELIVER);
        assertThat(m.admit("d1", "acme", 12, 0, true)).isEqualTo(Verdict.DELIVER);
        // the source crashed and sends the three again
        assertThat(m.admit("d1", "acme", 10, 111, false)).isEqualTo(Verdict.STALE);
        assertThat(m.admit("d1", "acme", 11, 222, false)).isEqualTo(Verdict.STALE);
        assertThat(m.admit("d1", "acme", 12, 0, true)).isEqualTo(Verdict.REPLAYED);
        // two changes of one transaction share a cluster time: both are delivered
        assertThat(m.admit("d2", "acme", 20, 1, false)).isEqualTo(Verdict.DELIVER);
        assertThat(m.admit("d2", "acme", 20, 2, false)).isEqualTo(Verdict.DELIVER);
    }

    @Test
    void copiesWithoutClusterTimeAreComparedByContent() {
        DocumentMemory m = new DocumentMemory(100);

        assertThat(m.admit("d", "acme", -1, 5, false)).isEqualTo(Verdict.DELIVER);
        assertThat(m.admit("d", "acme", -1, 5, false)).isEqualTo(Verdict.REPLAYED);
        assertThat(m.admit("d", "acme", -1, 6, false)).isEqualTo(Verdict.DELIVER);
        assertThat(m.admit("d", "acme", 30, 6, false)).isEqualTo(Verdict.DELIVER);
        // a copy after a streamed change keeps the cluster time: the stream's replay is still seen as one
        assertThat(m.admit("d", "acme", -1, 7, false)).isEqualTo(Verdict.DELIVER);
        assertThat(m.admit("d", "acme", 30, 6, false)).isEqualTo(Verdict.DELIVER);
        assertThat(m.admit("d", "acme", 29, 6, false)).isEqualTo(Verdict.STALE);
    }

    @Test
    void remembersTenantsBounded() {
        DocumentMemory live = new DocumentMemory(2);
        live.admit("a", "acme", 1, 1, false);
        live.admit("b", "globex", 1, 1, false);
        live.admit("c", "initech", 1, 1, false); // "a" is forgotten

        assertThat(live.tenantOf("a")).isNull();
        assertThat(live.tenantOf("b")).isEqualTo("globex");
        assertThat(live.size()).isEqualTo(2);
        live.admit("c", "other", 2, 1, false);
        assertThat(live.tenantOf("c")).isEqualTo("other");
    }
}
