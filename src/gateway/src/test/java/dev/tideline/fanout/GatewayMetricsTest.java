package dev.tideline.fanout;

import dev.tideline.fanout.stats.GatewayStats;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.channel.ConsumerProgress;
import dev.tideline.fanout.channel.HistoryLimits;
import dev.tideline.fanout.channel.NamespaceTopics;
import dev.tideline.fanout.kafka.ConsumerHealth;
import dev.tideline.fanout.quota.TenantQuotas;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The gateway's MBeans read what the gateway counts, follow the topics and tenants, and stay bounded. */
class GatewayMetricsTest {
    private static final int PORT = 64_999;
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final GatewayStats stats = new GatewayStats();
    private final ConsumerProgress progress = new ConsumerProgress();
    private final ChannelHub hub = new ChannelHub(new HistoryLimits(8, 60_000, 1 << 20, 1 << 24), 100, 60_000, progress,
            new NamespaceTopics(), System::currentTimeMillis);
    private final TenantQuotas quotas = new TenantQuotas(new TenantQuotas.Limits(1000, 1000, 10));

    @Test
    void beansReadTheGatewaysFiguresAndFollowTopicsAndTenants() throws Exception {
        TopicPartition p0 = new TopicPartition("shop.orders", 0);
        TopicPartition p1 = new TopicPartition("shop.orders", 1);
        progress.assigned(Set.of(p0, p1));
        progress.started(p0, 10);
        progress.started(p1, 0);
        progress.advanced(p0, 15);
        progress.measuredEnd(p0, 20);
        progress.measuredEnd(p1, 3);
        try (GatewayMetrics metrics = new GatewayMetrics(PORT, stats, hub, new ConsumerHealth(), quotas, () -> 2)) {
            stats.deliveries.add(7);
            stats.openConnections.set(3);
            stats.refused("401:expired");
            stats.refused("403:forbidden-channel");
            stats.refused("503:too-many-connections");
            stats.resumed("unrecoverable:bad-cursor");
            stats.readBack("kafka");
            stats.disconnected("slow-consumer");
            TenantQuotas.Lease acme = quotas.admit("acme", List.of(new ChannelName("shop", "orders", "acme")), 0);
            quotas.admit("acme", List.of(new ChannelName("shop", "orders", "acme")), 0);
            quotas.admit("globex", List.of(new ChannelName("shop", "orders", "globex")), 0);
            metrics.syncNow();

            assertThat(attr("type=gateway", "Deliveries")).isEqualTo(7L);
            assertThat(attr("type=gateway", "OpenConnections")).isEqualTo(3L);
            assertThat(attr("type=gateway", "CatchUpsQueued")).isEqualTo(2);
            assertThat(attr("type=gateway", "ConsumerState")).isEqualTo("starting");
            assertThat(attr("type=gateway-refusals", "status=401,reason=expired", "Count")).isEqualTo(1L);
            assertThat(attr("type=gateway-refusals", "status=503,reason=too-many-connections", "Count")).isEqualTo(1L);
            assertThat(attr("type=gateway-refusals", "status=401,reason=bad-signature", "Count")).as("known, at 0 before any").isEqualTo(0L);
            assertThat(attr("type=gateway-resumes", "outcome=unrecoverable-bad-cursor", "Count")).isEqualTo(1L);
            assertThat(attr("type=gateway-resumes", "outcome=kafka", "Count")).as("a read-back is not a resume").isEqualTo(0L);
            assertThat(attr("type=gateway-read-backs", "outcome=kafka", "Count")).isEqualTo(1L);
            assertThat(attr("type=gateway-disconnects", "reason=slow-consumer", "Count")).isEqualTo(1L);
            assertThat(attr("type=gateway-disconnects", "reason=overloaded", "Count")).isEqualTo(0L);
            // a topic's partitions summed: positions 15 + 0, ends 20 + 3, lag 5 + 3
            assertThat(attr("type=gateway-topic", "topic=shop.orders", "Position")).isEqualTo(15L);
            assertThat(attr("type=gateway-topic", "topic=shop.orders", "EndOffset")).isEqualTo(23L);
            assertThat(attr("type=gateway-topic", "topic=shop.orders", "LagRecords")).isEqualTo(8L);
            assertThat(attr("type=gateway-tenant", "tenant=acme", "Connections")).isEqualTo(2);
            assertThat(attr("type=gateway-tenant", "tenant=globex", "Connections")).isEqualTo(1);

            // a tenant whose last connection ends loses its bean; a topic no longer read loses its own
            acme.close();
            quotas.admit("acme", List.of(new ChannelName("shop", "orders", "acme")), 0).close();
            progress.assigned(Set.of());
            metrics.syncNow();
            assertThat(attr("type=gateway-tenant", "tenant=acme", "Connections")).isEqualTo(1);
            assertThat(names("type=gateway-topic")).isEmpty();
        }
        assertThat(names("*")).as("every bean unregistered at close").isEmpty();
    }

    @Test
    void tenantsBeyondTheListedAreSummed() throws Exception {
        try (GatewayMetrics metrics = new GatewayMetrics(PORT, stats, hub, new ConsumerHealth(), quotas, () -> 0)) {
            List<TenantQuotas.Lease> leases = new ArrayList<>();
            for (int t = 0; t < GatewayMetrics.TENANTS_LISTED + 5; t++) {
                String tenant = "t" + t;
                for (int c = 0; c <= (t == 0 ? 3 : 1); c++) {
                    leases.add(quotas.admit(tenant, List.of(new ChannelName("shop", "orders", tenant)), 0));
                }
            }
            metrics.syncNow();
            assertThat(names("type=gateway-tenant")).hasSize(GatewayMetrics.TENANTS_LISTED)
                    .contains("dev.tideline:type=gateway-tenant,gateway=" + PORT + ",tenant=t0");
            assertThat(attr("type=gateway", "OtherTenantsConnections")).isEqualTo(10L);
        }
    }

    private Object attr(String type, String attribute) throws Exception {
        return server.getAttribute(new ObjectName("dev.tideline:" + type + ",gateway=" + PORT), attribute);
    }

    private Object attr(String type, String keys, String attribute) throws Exception {
        return server.getAttribute(new ObjectName("dev.tideline:" + type + ",gateway=" + PORT + "," + keys), attribute);
    }

    private Set<String> names(String type) throws Exception {
        Set<String> out = new TreeSet<>();
        String pattern = type.equals("*") ? "dev.tideline:gateway=" + PORT + ",*" : "dev.tideline:" + type + ",gateway=" + PORT + ",*";
        server.queryNames(new ObjectName(pattern), null).forEach(n -> out.add(n.toString()));
        return out;
    }
}
