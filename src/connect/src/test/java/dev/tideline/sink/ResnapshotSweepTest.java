package dev.tideline.sink;

import static dev.tideline.sink.TestRecords.SHOP_ORDERS;
import static dev.tideline.sink.TestRecords.doc;
import static dev.tideline.sink.TestRecords.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.model.Filters;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.IdScope;
import dev.tideline.event.Op;
import dev.tideline.record.RecordForm;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.event.ValueFormat;
import dev.tideline.sink.guard.VersionStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A resnapshot's complete marker removes, per partition, the destination documents its copy did not
 * find (deleted at the source during the lost history), and nothing else: copies, changes after the
 * epoch, other partitions and other topics stay. Against an in-process mongo-java-server.
 */
class ResnapshotSweepTest {
    private static final String TOPIC = "src.shop.orders";
    private static final int OLD = 100;
    private static final int EPOCH = 200;

    private DestinationServer destination;
    private MongoClient client;
    private long offset;

    @BeforeEach
    void startServer() {
        destination = new DestinationServer();
        client = destination.client;
    }

    @AfterEach
    void stopServer() {
        destination.close();
    }

    private BatchApplier applier(Map<String, String> extra) {
        return destination.applier(extra);
    }

    private SinkRecord change(String topic, int partition, Op op, int id, int clusterSeconds) {
        var e = event(op, SHOP_ORDERS, id, op == Op.DELETE ? null : doc(id, "v" + clusterSeconds), clusterSeconds);
        return new SinkRecord(topic, partition, null, EnvelopeCodec.toKey(e.id(), ValueFormat.BSON), null,
                EnvelopeCodec.toValue(e, ValueFormat.BSON), offset++);
    }

    private SinkRecord marker(int partition, ResnapshotMarker.Stage stage, int partitions) {
        return marker(partition, stage, partitions, IdScope.ALL);
    }

    /** Headers as the worker's default header converter hands them to the task (a scope's JSON parsed into a Map). */
    private SinkRecord marker(int partition, ResnapshotMarker.Stage stage, int partitions, IdScope scope) {
        return marker(partition, stage, partitions, scope, EPOCH);
    }

    private SinkRecord marker(int partition, ResnapshotMarker.Stage stage, int partitions, IdScope scope, int epochSeconds) {
        ResnapshotMarker m = new ResnapshotMarker(stage, SHOP_ORDERS, TestRecords.ts(epochSeconds), partitions, scope);
        SimpleHeaderConverter converter = new SimpleHeaderConverter();
        converter.configure(Map.of());
        Map<String, String> sent = new java.util.LinkedHashMap<>(Map.of(EventHeaders.KIND, EventHeaders.KIND_CONTROL,
                EventHeaders.NAMESPACE, SHOP_ORDERS.fullName()));
        sent.putAll(m.headers());
        ConnectHeaders h = new ConnectHeaders();
        sent.forEach((k, v) -> h.add(k, converter.toConnectHeader(TOPIC, k, converter.fromConnectHeader(TOPIC, k, Schema.STRING_SCHEMA, v))));
        RecordForm form = RecordForm.of(ValueFormat.BSON);
        return new SinkRecord(TOPIC, partition, null, form.noticeKey(SHOP_ORDERS.fullName()), null,
                form.notice(m.value(0)), offset++, null, null, h);
    }

    private Set<Integer> ids() {
        Set<Integer> ids = new TreeSet<>();
        client.getDatabase("dest").getCollection("orders").find().forEach(d -> ids.add(d.getInteger("_id")));
        return ids;
    }

    /** Documents 1-6 on partition 0 and 11-13 on partition 1, all written before the history was lost. */
    private void before(BatchApplier a) {
        List<SinkRecord> old = new ArrayList<>();
        for (int id : List.of(1, 2, 3, 4, 5, 6)) {
            old.add(change(TOPIC, 0, Op.INSERT, id, OLD));
        }
        for (int id : List.of(11, 12, 13)) {
            old.add(change(TOPIC, 1, Op.INSERT, id, OLD));
        }
        old.add(change("other.topic", 0, Op.INSERT, 21, OLD)); // another source feeding the same collection
        a.apply(old);
    }

    @Test
    void removesPerPartitionWhatTheCopyDidNotFindAndKeepsEverythingNewer() {
        BatchApplier a = applier(Map.of());
        before(a);
        // the copy found 1, 2 (and 11); 6 was changed during the copy (after the epoch); 7 was inserted after the
        // marker, in the same batch; 3, 4, 5 were deleted at the source while the history was lost
        BatchOutcome out = a.apply(List.of(
                marker(0, ResnapshotMarker.Stage.BEGIN, 2), marker(1, ResnapshotMarker.Stage.BEGIN, 2),
                change(TOPIC, 0, Op.READ, 1, EPOCH), change(TOPIC, 0, Op.READ, 2, EPOCH),
                change(TOPIC, 0, Op.UPDATE, 6, EPOCH + 5),
                marker(0, ResnapshotMarker.Stage.COMPLETE, 2),
                change(TOPIC, 0, Op.INSERT, 7, EPOCH + 9)));
        assertThat(out.failures()).isEmpty();
        assertThat(ids()).containsExactly(1, 2, 6, 7, 11, 12, 13, 21);

        // partition 1's copies and marker arrive later (another task, or lag): only then are its documents swept
        a.apply(List.of(change(TOPIC, 1, Op.READ, 11, EPOCH), marker(1, ResnapshotMarker.Stage.COMPLETE, 2)));
        assertThat(ids()).containsExactly(1, 2, 6, 7, 11, 21);
        assertThat(client.getDatabase("dest").getCollection("orders").find(Filters.eq("_id", 6)).first().getString("name"))
                .isEqualTo("v" + (EPOCH + 5));

        // the swept documents are recorded as deleted at the epoch: a late, older change cannot bring one back
        BsonDocument entry = client.getDatabase("dest").getCollection(VersionStore.COLLECTION, BsonDocument.class)
                .find(Filters.eq("_id", new BsonDocument("ns", new org.bson.BsonString("orders")).append("id", new org.bson.BsonInt32(3))))
                .first();
        assertThat(entry.getBoolean("deleted").getValue()).isTrue();
        assertThat(entry.getTimestamp("v")).isEqualTo(TestRecords.ts(EPOCH));
        a.apply(List.of(change(TOPIC, 0, Op.UPDATE, 3, EPOCH - 1)));
        assertThat(ids()).doesNotContain(3);
    }

    @Test
    void aRedeliveredMarkerIsIdempotentAndANewerReinsertSurvivesIt() {
        BatchApplier a = applier(Map.of());
        before(a);
        List<SinkRecord> batch = List.of(marker(0, ResnapshotMarker.Stage.BEGIN, 1), change(TOPIC, 0, Op.READ, 1, EPOCH),
                marker(0, ResnapshotMarker.Stage.COMPLETE, 1));
        a.apply(batch);
        assertThat(ids()).containsExactly(1, 11, 12, 13, 21);
        a.apply(List.of(change(TOPIC, 0, Op.INSERT, 4, EPOCH + 1))); // re-inserted at the source after the copy
        a.apply(batch); // the same records again (a retried batch)
        assertThat(ids()).containsExactly(1, 4, 11, 12, 13, 21);
    }

    @Test
    void withoutVersionsNothingIsSweptAndNothingFails() {
        BatchApplier a = applier(Map.of("stale.guard", "off"));
        before(a);
        BatchOutcome out = a.apply(List.of(marker(0, ResnapshotMarker.Stage.BEGIN, 1), change(TOPIC, 0, Op.READ, 1, EPOCH),
                marker(0, ResnapshotMarker.Stage.COMPLETE, 1)));
        assertThat(out.failures()).isEmpty();
        assertThat(ids()).containsExactly(1, 2, 3, 4, 5, 6, 11, 12, 13, 21);
    }

    @Test
    void aCompleteWithoutItsBeginOnThatPartitionIsRefusedAndSweepsNothing() {
        BatchApplier a = applier(Map.of());
        before(a);
        // a begin of another epoch on partition 0, and this epoch's begin on partition 1 only: neither counts for
        // a complete on partition 0
        SinkRecord otherEpoch = marker(0, ResnapshotMarker.Stage.BEGIN, 2, IdScope.ALL, EPOCH - 50);
        SinkRecord orphan = marker(0, ResnapshotMarker.Stage.COMPLETE, 2);
        SinkRecord again = marker(0, ResnapshotMarker.Stage.COMPLETE, 2); // the same marker re-sent: refused as well
        BatchOutcome out = a.apply(List.of(otherEpoch, marker(1, ResnapshotMarker.Stage.BEGIN, 2), orphan,
                change(TOPIC, 0, Op.INSERT, 7, EPOCH + 1), again));
        assertThat(out.failures()).extracting(f -> f.record()).containsExactly(orphan, again);
        assertThat(out.failures().get(0).reason()).contains("without its resnapshot.begin marker of the same epoch earlier on "
                + TOPIC + "-0").contains("sweeps nothing");
        assertThat(ids()).containsExactly(1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 21);
    }

    @Test
    void aBeginSeenBeforeARestartStillCounts() {
        before(applier(Map.of()));
        applier(Map.of()).apply(List.of(marker(0, ResnapshotMarker.Stage.BEGIN, 1), change(TOPIC, 0, Op.READ, 1, EPOCH)));
        // a new task (a restart): what it knows of the begin is in the destination
        BatchOutcome out = applier(Map.of()).apply(List.of(marker(0, ResnapshotMarker.Stage.COMPLETE, 1)));
        assertThat(out.failures()).isEmpty();
        assertThat(ids()).containsExactly(1, 11, 12, 13, 21);
    }

    @Test
    void aMarkerWhoseEpochIsAheadOfTheClockIsRefusedAndNeitherBeginsNorSweeps() {
        BatchApplier a = applier(Map.of("version.max.ahead.ms", "60000"));
        before(a);
        int future = (int) (System.currentTimeMillis() / 1000 + 3600); // an hour ahead
        SinkRecord begin = marker(0, ResnapshotMarker.Stage.BEGIN, 1, IdScope.ALL, future);
        SinkRecord complete = marker(0, ResnapshotMarker.Stage.COMPLETE, 1, IdScope.ALL, future);
        BatchOutcome out = a.apply(List.of(begin, complete));
        assertThat(out.failures()).extracting(f -> f.record()).containsExactly(begin, complete);
        assertThat(out.failures().get(1).reason()).contains("the epoch of this resnapshot.complete marker")
                .contains("ahead of this worker's clock").contains("version.max.ahead.ms (60000 ms)");
        assertThat(ids()).containsExactly(1, 2, 3, 4, 5, 6, 11, 12, 13, 21);
        assertThat(client.getDatabase("dest").getCollection(dev.tideline.sink.guard.CopyBegins.COLLECTION).countDocuments()).isZero();
    }

    @Test
    void aBrokenMarkerIsAFailedRecordAndTheRestIsApplied() {
        BatchApplier a = applier(Map.of());
        SinkRecord broken = marker(0, ResnapshotMarker.Stage.COMPLETE, 1);
        broken.headers().remove(EventHeaders.EPOCH);
        BatchOutcome out = a.apply(List.of(broken, change(TOPIC, 0, Op.INSERT, 1, OLD)));
        assertThat(out.failures()).hasSize(1);
        assertThat(out.failures().get(0).reason()).contains(EventHeaders.EPOCH);
        assertThat(ids()).containsExactly(1);
    }

    @Test
    void aRepairSweepsOnlyInsideItsRange() {
        BatchApplier a = applier(Map.of());
        before(a);
        // a repair of the ids [2, 5) on both partitions: the copy found 2; 3 and 4 are gone at the source. 1, 5 and 6
        // are as old but outside the range, so the repair did not copy them: they stay, as do 11-13 on partition 1
        IdScope range = new IdScope(new BsonInt32(2), new BsonInt32(5));
        BatchOutcome out = a.apply(List.of(
                marker(0, ResnapshotMarker.Stage.BEGIN, 2, range), marker(1, ResnapshotMarker.Stage.BEGIN, 2, range),
                change(TOPIC, 0, Op.READ, 2, EPOCH),
                marker(0, ResnapshotMarker.Stage.COMPLETE, 2, range), marker(1, ResnapshotMarker.Stage.COMPLETE, 2, range)));
        assertThat(out.failures()).isEmpty();
        assertThat(ids()).containsExactly(1, 2, 5, 6, 11, 12, 13, 21);

        // a range of string ids holds no number (numbers sort before strings): nothing more goes
        a.apply(List.of(marker(0, ResnapshotMarker.Stage.COMPLETE, 2, new IdScope(new BsonString(""), null))));
        assertThat(ids()).containsExactly(1, 2, 5, 6, 11, 12, 13, 21);

        // the whole collection's marker still sweeps everything older than the epoch
        a.apply(List.of(marker(0, ResnapshotMarker.Stage.COMPLETE, 2)));
        assertThat(ids()).containsExactly(2, 11, 12, 13, 21);
    }
}
