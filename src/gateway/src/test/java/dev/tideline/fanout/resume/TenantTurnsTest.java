package dev.tideline.fanout.resume;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TenantTurnsTest {
    @Test
    void tenantsTakeTurnsSoOneTenantsBacklogDoesNotHoldAnotherBack() throws Exception {
        TenantTurns<String> q = new TenantTurns<>(10);
        for (int i = 1; i <= 5; i++) {
            assertThat(q.offer("acme", "acme-" + i)).isTrue();
        }
        q.offer("globex", "globex-1");
        q.offer("initech", "initech-1");
        q.offer("globex", "globex-2");

        List<String> order = new ArrayList<>();
        for (String w; (w = q.poll(10, TimeUnit.MILLISECONDS)) != null; ) {
            order.add(w);
        }

        assertThat(order).containsExactly("acme-1", "globex-1", "initech-1", "acme-2", "globex-2", "acme-3", "acme-4", "acme-5");
        assertThat(q.size()).isZero();
    }

    @Test
    void isBoundedInAll() {
        TenantTurns<String> q = new TenantTurns<>(2);
        assertThat(q.offer("acme", "a")).isTrue();
        assertThat(q.offer("globex", "g")).isTrue();
        assertThat(q.offer("initech", "i")).isFalse();
        assertThat(q.size()).isEqualTo(2);
    }
}
