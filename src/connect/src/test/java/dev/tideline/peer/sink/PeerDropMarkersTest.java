package dev.tideline.peer.sink;

import static dev.tideline.peer.sink.PeerRecordReaderTest.KEYS;
import static dev.tideline.peer.sink.PeerRecordReaderTest.NS;
import static dev.tideline.peer.sink.PeerRecordReaderTest.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.IdScope;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.peer.PeerHeaders;
import dev.tideline.peer.TenantScope;
import dev.tideline.sink.write.RecordFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/**
 * A peer's drop reaches the peer sink as a copy of nothing (resnapshot markers of the drop's cluster time with no copied
 * record between): the peer sink does not apply it, and must not ignore it silently either. It reports it once, and
 * leaves the copies with records, repairs and its own cluster's markers alone.
 */
class PeerDropMarkersTest {
    private static final BsonTimestamp DROP = new BsonTimestamp((int) (System.currentTimeMillis() / 1000) - 60, 3);
    private final PeerCounters counters = new PeerCounters();
    private final PeerQueue queue = new PeerQueue("A", PeerRecordReaderTest.reader(Map.of("database.allow", "app")), counters,
            TenantScope.of(List.of()), null);
    private long offset;

    /** A marker as a peer source sends it: to partition {@code p} of the collection's topic, with its cluster. */
    private SinkRecord marker(ResnapshotMarker m, int p, String cluster) {
        ConnectHeaders h = new ConnectHeaders();
        h.addString(EventHeaders.KIND, EventHeaders.KIND_CONTROL);
        h.addString(EventHeaders.NAMESPACE, m.ns().fullName());
        h.addString(PeerHeaders.CLUSTER, cluster);
        m.headers().forEach(h::addString);
        return new SinkRecord(TOPIC, p, null, null, null, EnvelopeCodec.toBytes(m.value(0)), offset++, null, null, h);
    }

    private List<SinkRecord> copyOfNothing(BsonTimestamp epoch, String cluster) {
        List<SinkRecord> records = new ArrayList<>();
        for (ResnapshotMarker.Stage stage : ResnapshotMarker.Stage.values()) {
            for (int p = 0; p < 2; p++) {
                records.add(marker(new ResnapshotMarker(stage, NS, epoch, 2), p, cluster));
            }
        }
        return records;
    }

    @Test
    void aPeersDropIsReportedOnceWhenItsCompleteCameOnEveryPartition() {
        List<SinkRecord> drop = copyOfNothing(DROP, "B");
        assertThat(queue.add(drop.subList(0, 3))).isEmpty();
        assertThat(queue.markers().notApplied()).as("the complete has not come on partition 1 yet").isZero();

        assertThat(queue.add(drop.subList(3, 4))).isEmpty();
        assertThat(queue.markers().notApplied()).isEqualTo(1);
        assertThat(queue.markers().last()).contains("a copy of nothing of app.docs").contains("from cluster B").contains("is not applied");
        assertThat(queue.markers().lastAt()).isPositive();

        queue.add(copyOfNothing(DROP, "B")); // the source sends its markers again after a crash
        assertThat(queue.markers().notApplied()).as("reported once").isEqualTo(1);
        assertThat(queue.queued()).as("nothing to apply waits").isZero();
    }

    @Test
    void aCopyWithRecordsARepairAndThisClustersOwnDropAreNotReported() {
        List<SinkRecord> copy = new ArrayList<>(copyOfNothing(DROP, "B"));
        copy.add(2, PeerRecordReaderTest.writeAt(NS, 1, new BsonDocument("w", new BsonString("x")), KEYS, DROP, offset++));
        queue.add(copy);

        BsonTimestamp later = new BsonTimestamp(DROP.getTime() + 1, 0);
        List<SinkRecord> repair = new ArrayList<>();
        for (ResnapshotMarker.Stage stage : ResnapshotMarker.Stage.values()) {
            repair.add(marker(new ResnapshotMarker(stage, NS, later, 1, new IdScope(new BsonInt32(0), new BsonInt32(9))), 0, "B"));
        }
        queue.add(repair);
        queue.add(copyOfNothing(new BsonTimestamp(DROP.getTime() + 2, 0), "A"));

        assertThat(queue.markers().notApplied()).isZero();
        assertThat(queue.queued()).as("the copied document").isEqualTo(1);
    }

    @Test
    void aMarkerWithAnEpochFromTheFutureGoesToTheDeadLetterQueueAsInTheSink() {
        BsonTimestamp dayAhead = new BsonTimestamp((int) (System.currentTimeMillis() / 1000 + 24 * 3600), 1);
        List<RecordFailure> refused = queue.add(copyOfNothing(dayAhead, "B"));
        assertThat(refused).hasSize(4).allSatisfy(f -> assertThat(f.message()).contains("ahead of this worker's clock"));
        assertThat(queue.markers().notApplied()).isZero();
    }
}
