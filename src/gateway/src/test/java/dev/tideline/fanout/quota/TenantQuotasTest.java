package dev.tideline.fanout.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.fanout.channel.ChannelName;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TenantQuotasTest {
    private static ChannelName c(String coll, String tenant) {
        return new ChannelName("shop", coll, tenant);
    }

    private static String refusal(TenantQuotas q, String tenant, List<ChannelName> channels, int catchUps) {
        try {
            q.admit(tenant, channels, catchUps);
            return "admitted";
        } catch (TenantQuotas.QuotaExceededException e) {
            return e.reason();
        }
    }

    @Test
    void aTenantAtItsQuotasIsRefusedAloneAndGetsItsShareBackWhenASubscriptionEnds() throws Exception {
        TenantQuotas q = new TenantQuotas(new TenantQuotas.Limits(3, 2, 1));
        TenantQuotas.Lease first = q.admit("acme", List.of(c("a", "acme")), 1);
        TenantQuotas.Lease second = q.admit("acme", List.of(c("b", "acme")), 0);

        assertThat(refusal(q, "acme", List.of(c("z", "acme")), 0)).isEqualTo("tenant-channels");
        assertThat(refusal(q, "acme", List.of(c("a", "acme")), 1)).isEqualTo("tenant-catch-ups");
        TenantQuotas.Lease third = q.admit("acme", List.of(c("a", "acme"), c("b", "acme")), 0); // channels it holds already
        assertThat(refusal(q, "acme", List.of(c("a", "acme")), 0)).isEqualTo("tenant-connections");
        // another tenant is not affected
        for (int i = 0; i < 3; i++) {
            q.admit("globex", List.of(c("a", "globex")), 0);
        }
        assertThat(q.connections("acme")).isEqualTo(3);

        first.releaseCatchUp(); // its read-back ended
        first.releaseCatchUp(); // more than taken: nothing
        second.close();
        second.close(); // idempotent
        TenantQuotas.Lease again = q.admit("acme", List.of(c("a", "acme")), 1);
        assertThat(refusal(q, "acme", List.of(c("a", "acme")), 0)).isEqualTo("tenant-connections");
        first.close();
        third.close();
        again.close();
        assertThat(q.connections("acme")).isZero();
        assertThat(q.tenants()).isEqualTo(1); // globex only: an idle tenant leaves nothing behind
        // a refused subscription took nothing: the full quota is there
        q.admit("acme", List.of(c("x", "acme"), c("y", "acme")), 1);
    }

    @Test
    void closingALeaseGivesBackTheCatchUpsItStillHeld() throws Exception {
        TenantQuotas q = new TenantQuotas(new TenantQuotas.Limits(10, 10, 2));
        TenantQuotas.Lease lease = q.admit("acme", List.of(c("a", "acme"), c("b", "acme")), 2);
        assertThat(refusal(q, "acme", List.of(c("a", "acme")), 1)).isEqualTo("tenant-catch-ups");
        lease.close(); // disconnected while catching up
        lease.releaseCatchUp(); // the read-back ends afterwards: nothing more to give back
        q.admit("acme", List.of(c("a", "acme"), c("b", "acme")), 2);
        assertThatThrownBy(() -> q.admit("acme", List.of(c("a", "acme")), 1)).isInstanceOf(TenantQuotas.QuotaExceededException.class);
    }

    @Test
    void concurrentAdmissionsNeverExceedAQuota() throws Exception {
        TenantQuotas q = new TenantQuotas(new TenantQuotas.Limits(50, 1000, 1000));
        AtomicInteger admitted = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread th = new Thread(() -> {
                try {
                    go.await();
                    for (int i = 0; i < 100; i++) {
                        try {
                            q.admit("acme", List.of(c("a", "acme")), 0);
                            admitted.incrementAndGet();
                        } catch (TenantQuotas.QuotaExceededException refused) {
                            // expected past 50
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            threads.add(th);
            th.start();
        }
        go.countDown();
        for (Thread th : threads) {
            th.join();
        }
        assertThat(admitted.get()).isEqualTo(50);
        assertThat(q.connections("acme")).isEqualTo(50);
    }
}
