package dev.tideline.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.mongo.MongoClientFactory;
import java.lang.management.ManagementFactory;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/** The MBeans appear under the documented names, carry the figures and the roll-up, and leave on close. */
class TaskMetricsJmxTest {
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Test
    void sourceTaskAndCollectionBeans() throws Exception {
        TaskIdentity id = TaskIdentity.of(Map.of("name", "jmx-test", TaskIdentity.TASK_INDEX, "3"));
        ObjectName task = new ObjectName("dev.tideline:type=source-task,connector=jmx-test,task=3");
        ObjectName coll = new ObjectName("dev.tideline:type=source-task,connector=jmx-test,task=3,collection=shop.orders");
        try (SourceTaskMetrics metrics = new SourceTaskMetrics(id)) {
            SourceCollectionMetrics orders = metrics.collection("shop.orders", "shop");
            assertThat(server.getAttribute(task, "Health")).isEqualTo("ok");

            long now = System.currentTimeMillis();
            orders.published(7, 1, now / 1000 - 30, now);
            orders.opened("backfill", new FixedBackfill(40, 100));
            assertThat(server.getAttribute(coll, "Events")).isEqualTo(7L);
            assertThat(server.getAttribute(coll, "Heartbeats")).isEqualTo(1L);
            assertThat((Long) server.getAttribute(coll, "LagMillis")).isBetween(29_000L, 40_000L);
            assertThat(server.getAttribute(coll, "BackfillCopied")).isEqualTo(40L);
            assertThat(server.getAttribute(coll, "BackfillEstimatedTotal")).isEqualTo(100L);
            assertThat(server.getAttribute(coll, "Phase")).isEqualTo("backfill");
            assertThat(server.getAttribute(task, "Collections")).isEqualTo(new String[] {"shop.orders"});

            orders.retrying(true);
            assertThat(server.getAttribute(task, "Health")).isEqualTo("down");
            assertThat(server.getAttribute(task, "HealthReasons")).isEqualTo(new String[] {"shop.orders: source-unreachable"});
            assertThat(server.getAttribute(task, "Retries")).isEqualTo(1L);
            orders.opened("stream", null);
            assertThat(server.getAttribute(coll, "Health")).isEqualTo("ok");
            orders.historyLost(true);
            assertThat(server.getAttribute(task, "Health")).isEqualTo("stalled");
            assertThat(server.getAttribute(task, "LostHistoryEvents")).isEqualTo(1L);
            orders.streaming();
            assertThat(server.getAttribute(task, "Health")).isEqualTo("ok");

            // the database's change stream cannot reach the server: one reason for the task, and every collection it reads is down
            metrics.streamRetrying("shop", true);
            assertThat(server.getAttribute(task, "HealthReasons")).isEqualTo(new String[] {"change stream of shop: source-unreachable"});
            assertThat(server.getAttribute(coll, "Health")).isEqualTo("down");
            assertThat(server.getAttribute(coll, "HealthReasons")).isEqualTo(new String[] {"change stream of shop: source-unreachable"});
            metrics.streamOpened("shop");
            assertThat(server.getAttribute(coll, "Health")).isEqualTo("ok");
            orders.parked();
            assertThat(server.getAttribute(task, "Health")).isEqualTo("degraded");
            assertThat(server.getAttribute(task, "HealthReasons")).isEqualTo(new String[] {"shop.orders: parked"});
            assertThat(server.getAttribute(coll, "Phase")).isEqualTo("parked");
        }
        assertThat(server.isRegistered(task)).isFalse();
        assertThat(server.isRegistered(coll)).isFalse();
    }

    @Test
    void sinkTaskBeanAndQuotedNames() throws Exception {
        TaskIdentity id = new TaskIdentity("sink,with:odd=name", 0);
        String destination = SinkTaskMetrics.destination(MongoClientFactory.hostsOf("mongodb://u:secret@h1:27017,h2/?replicaSet=rs0"),
                java.util.Optional.of("shop_copy"));
        ObjectName name = SinkTaskMetrics.name(id, destination);
        assertThat(server.queryNames(new ObjectName("dev.tideline:type=sink-task,*"), null)).doesNotContain(name);
        try (SinkTaskMetrics metrics = new SinkTaskMetrics(id, destination)) {
            assertThat(name.getKeyProperty("connector")).isEqualTo(ObjectName.quote("sink,with:odd=name"));
            // the hosts and the database, no credentials, no options; in the name Prometheus sees (quoted: it holds ':' and ',')
            assertThat(name.getKeyProperty("destination")).isEqualTo(ObjectName.quote("h1:27017,h2/shop_copy"));
            assertThat(server.queryNames(new ObjectName("dev.tideline:type=sink-task,*"), null)).contains(name);
            metrics.retrying(false);
            assertThat(server.getAttribute(name, "Health")).isEqualTo("degraded");
            long now = System.currentTimeMillis();
            metrics.applied(12, 3, 2, now - 5_000, now);
            assertThat(server.getAttribute(name, "Health")).isEqualTo("ok");
            assertThat(server.getAttribute(name, "RecordsApplied")).isEqualTo(12L);
            assertThat(server.getAttribute(name, "StaleSkipped")).isEqualTo(3L);
            assertThat(server.getAttribute(name, "DeadLetterRecords")).isEqualTo(2L);
            assertThat(server.getAttribute(name, "Retries")).isEqualTo(1L);
            assertThat((Long) server.getAttribute(name, "LagMillis")).isBetween(5_000L, 15_000L);
            metrics.authFailed();
            assertThat(server.getAttribute(name, "HealthReasons")).isEqualTo(new String[] {"destination: auth-failed"});
        }
        assertThat(server.isRegistered(name)).isFalse();
    }

    private record FixedBackfill(long copied, long estimatedTotal) implements BackfillGauge {
        @Override
        public double rate(long nowMs) {
            return 10;
        }

        @Override
        public long etaSeconds(long nowMs) {
            return 6;
        }
    }
}
