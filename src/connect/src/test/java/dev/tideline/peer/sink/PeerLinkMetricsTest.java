package dev.tideline.peer.sink;

import static dev.tideline.peer.sink.PeerRecordReaderTest.KEYS;
import static dev.tideline.peer.sink.PeerRecordReaderTest.NS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.health.Health;
import dev.tideline.health.HealthReason;
import dev.tideline.health.Jmx;
import dev.tideline.health.TaskIdentity;
import dev.tideline.peer.TenantScope;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;

/** The peer sink's MBean carries the queue's and the counters' figures as of the last report, and leaves on close. */
class PeerLinkMetricsTest {
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Test
    void figuresOfTheLastReport() throws Exception {
        PeerCounters counters = new PeerCounters();
        PeerQueue queue = new PeerQueue("A", PeerRecordReaderTest.reader(Map.of()), counters, TenantScope.of(List.of()), null);
        ObjectName name = new ObjectName("dev.tideline:type=peer-sink,connector=link-a,task=0");
        try (PeerLinkMetrics metrics = new PeerLinkMetrics(new TaskIdentity("link-a", 0))) {
            assertThat(Jmx.name(PeerLinkMetrics.TYPE, new TaskIdentity("link-a", 0), null)).isEqualTo(name);
            assertThat(server.getAttribute(name, "RoundTripLagMillis")).isEqualTo(-1L);
            assertThat(server.getAttribute(name, "ApplyLagMillis")).isEqualTo(-1L);

            BsonDocument content = new BsonDocument("w", new BsonString("x"));
            long sent = System.currentTimeMillis() - 4_000;
            queue.add(List.of(PeerRecordReaderTest.write(NS, 1, content, null, 10), // no MAC
                    PeerRecordReaderTest.write(NS, 2, content, KEYS, 11)));
            queue.roundTrips().echoed("B", sent, sent + 700);
            queue.roundTrips().echoed("C", sent, sent + 300);
            counters.conflictResolved();
            // nothing moves until the task reports
            assertThat(server.getAttribute(name, "QueuedRecords")).isEqualTo(0);
            metrics.update(Health.rollUp("link", Set.of(HealthReason.REFUSED_RECORDS)), queue, counters);

            assertThat(server.getAttribute(name, "Health")).isEqualTo("degraded");
            assertThat(server.getAttribute(name, "RoundTripLagMillis")).as("the longest of the peers'").isEqualTo(700L);
            assertThat(server.getAttribute(name, "QueuedRecords")).isEqualTo(1);
            assertThat(server.getAttribute(name, "HeldDocuments")).isEqualTo(0);
            assertThat(server.getAttribute(name, "RecordsReceived")).isEqualTo(2L);
            assertThat(server.getAttribute(name, "ConflictsResolved")).isEqualTo(1L);
            assertThat(server.getAttribute(name, "RefusedMissingMac")).isEqualTo(1L);
            assertThat(server.getAttribute(name, "RefusedBadMac")).isEqualTo(0L);
            assertThat(server.getAttribute(name, "RefusedMalformed")).isEqualTo(0L);
            assertThat(server.getAttribute(name, "RefusedByPolicy")).isEqualTo(0L);
        }
        assertThat(server.isRegistered(name)).isFalse();
    }
}
