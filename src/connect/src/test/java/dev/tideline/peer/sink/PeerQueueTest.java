package dev.tideline.peer.sink;

import static dev.tideline.peer.sink.PeerRecordReaderTest.KEYS;
import static dev.tideline.peer.sink.PeerRecordReaderTest.NS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.EnvelopeCodec;
import dev.tideline.peer.TenantScope;
import dev.tideline.sink.write.RecordFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** Records the peer sink refuses are returned for the dead letter queue and counted: none waits, none holds an offset. */
class PeerQueueTest {
    private final PeerCounters counters = new PeerCounters();
    private final PeerQueue queue = new PeerQueue("A", PeerRecordReaderTest.reader(Map.of("database.allow", "app")), counters,
            TenantScope.of(List.of()), null);

    @Test
    void refusedRecordsAreReturnedWithTheirReasonsAndNeverQueued() {
        List<SinkRecord> records = new ArrayList<>();
        BsonDocument content = new BsonDocument("w", new BsonString("x"));
        records.add(PeerRecordReaderTest.write(NS, 1, content, null, 10)); // no MAC
        records.add(PeerRecordReaderTest.write(NS, 2, content, new dev.tideline.peer.StampKeys("not the link's key, 32 characters!", null), 11));
        records.add(new SinkRecord("b.app.docs", 0, null, null, null, new byte[] {9, 9, 9}, 12)); // malformed
        records.add(PeerRecordReaderTest.write(new dev.tideline.event.Namespace("other", "docs"), 3, content, KEYS, 13)); // database.allow
        records.add(PeerRecordReaderTest.write(NS, 4, content, KEYS, 14)); // honest

        List<RecordFailure> refused = queue.add(records);

        assertThat(refused).extracting(f -> f.record().kafkaOffset()).containsExactly(10L, 11L, 12L, 13L);
        assertThat(refused.get(0).message()).contains("offset 10").contains("carries no MAC");
        assertThat(refused.get(1).message()).contains("does not verify");
        assertThat(refused.get(2).message()).contains("malformed record");
        assertThat(refused.get(3).message()).contains("database.allow");
        assertThat(queue.queued()).as("only the honest record waits").isEqualTo(1);
        assertThat(queue.lowestQueuedOffsets().values()).as("the refused records hold no offset").containsExactly(14L);
        BsonDocument dlq = counters.toBson().getDocument("refusedToDlq");
        assertThat(dlq.getInt64("missingMac").getValue()).isEqualTo(1);
        assertThat(dlq.getInt64("badMac").getValue()).isEqualTo(1);
        assertThat(dlq.getInt64("malformed").getValue()).isEqualTo(1);
        assertThat(dlq.getInt64("refused").getValue()).isEqualTo(1);
        assertThat(counters.lastRefusal()).contains("offset 13");
    }

    /** Flow control may pause only the partitions that carried a peer's records (never this cluster's own). */
    @Test
    void thePartitionsOfPeersRecordsAreKnown() {
        assertThat(queue.peerPartitions()).isEmpty();
        queue.add(List.of(new SinkRecord("b.app.docs", 3, null, null, null, new byte[] {9, 9, 9}, 1))); // malformed: refused
        assertThat(queue.peerPartitions()).as("a refused record names no partition").isEmpty();

        queue.add(List.of(PeerRecordReaderTest.write(NS, 4, new BsonDocument("w", new BsonString("x")), KEYS, 2)));
        assertThat(queue.peerPartitions()).containsExactly(new org.apache.kafka.common.TopicPartition(PeerRecordReaderTest.TOPIC, 0));
    }

    /** Where a (re)started task's change stream of a collection starts: the earliest of its own records queued there. */
    @Test
    void theEarliestOwnRecordQueuedForACollectionIsKnown() {
        PeerQueue ownQueue = new PeerQueue("B", PeerRecordReaderTest.reader(Map.of("database.allow", "app", "peer.cluster.id", "B")),
                new PeerCounters(), TenantScope.of(List.of()), null);
        BsonDocument content = new BsonDocument("w", new BsonString("x"));
        assertThat(ownQueue.earliestOwnChange(NS)).isNull();
        List<SinkRecord> bsRecords = List.of(PeerRecordReaderTest.writeAt(NS, 1, content, KEYS, new BsonTimestamp(1_700_000_020, 1), 1),
                PeerRecordReaderTest.writeAt(NS, 2, content, KEYS, new BsonTimestamp(1_700_000_010, 7), 2));
        ownQueue.add(bsRecords);
        queue.add(bsRecords);
        assertThat(ownQueue.earliestOwnChange(NS)).isEqualTo(new BsonTimestamp(1_700_000_010, 7));
        assertThat(queue.earliestOwnChange(NS)).as("on A, B's records are a peer's").isNull();
        assertThat(ownQueue.earliestOwnChange(new dev.tideline.event.Namespace("app", "other"))).isNull();
    }

    @Test
    void changesBeyondTheSinksBoundsAreRefusedToTheDeadLetterQueueAsTheSinkRefusesThem() {
        long dayAheadSeconds = System.currentTimeMillis() / 1000 + 24 * 3600;
        SinkRecord ahead = PeerRecordReaderTest.writeAt(NS, 1, new BsonDocument("w", new BsonString("x")), KEYS,
                new BsonTimestamp((int) dayAheadSeconds, 1), 20);
        // an update event of MongoDB's official connector whose path nests deeper than MongoDB allows
        BsonDocument deepUpdate = new BsonDocument("_id", new BsonDocument("_data", new BsonString("token")))
                .append("operationType", new BsonString("update"))
                .append("ns", new BsonDocument("db", new BsonString(NS.db())).append("coll", new BsonString(NS.coll())))
                .append("documentKey", new BsonDocument("_id", new BsonInt32(2)))
                .append("updateDescription", new BsonDocument("updatedFields", new BsonDocument("b" + ".b".repeat(200),
                        new BsonInt32(1))).append("removedFields", new BsonArray()))
                .append("clusterTime", new BsonTimestamp(1_700_000_000, 2));
        SinkRecord deep = new SinkRecord(PeerRecordReaderTest.TOPIC, 0, null, null, null, EnvelopeCodec.toBytes(deepUpdate), 21);

        List<RecordFailure> refused = queue.add(List.of(ahead, deep));

        assertThat(refused).extracting(f -> f.record().kafkaOffset()).containsExactly(20L, 21L);
        assertThat(refused.get(0).message()).contains("ahead of this worker's clock").contains("version.max.ahead.ms");
        assertThat(refused.get(1).message()).contains("the update of _id 2").contains("more than 100 parts");
        assertThat(queue.queued()).isZero();
        assertThat(counters.toBson().getDocument("refusedToDlq").getInt64("refused").getValue()).isEqualTo(2);
    }

    @Test
    void noGeneratedRecordMakesAddThrow() {
        java.util.Random random = new java.util.Random(7);
        SinkRecord honest = PeerRecordReaderTest.write(NS, 1, new BsonDocument("w", new BsonString("x")), KEYS, 0);
        byte[] valid = (byte[]) honest.value();
        List<SinkRecord> records = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            byte[] value;
            switch (i % 3) {
                case 0 -> {
                    value = new byte[random.nextInt(300)];
                    random.nextBytes(value);
                }
                case 1 -> value = java.util.Arrays.copyOf(valid, random.nextInt(valid.length)); // truncated
                default -> {
                    value = valid.clone();
                    for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                        value[random.nextInt(value.length)] = (byte) random.nextInt(256);
                    }
                }
            }
            records.add(new SinkRecord(honest.topic(), 0, null, honest.key(), null, value, 100 + i, null, null, honest.headers()));
        }
        List<RecordFailure> refused = queue.add(records);
        assertThat(refused.size() + queue.queued()).as("every record refused or (a flip that left it valid) queued")
                .isEqualTo(records.size());
        assertThat(refused.size()).isGreaterThan(2_900);
        System.out.println("generated records: " + refused.size() + " of " + records.size() + " refused, " + queue.queued()
                + " read as changes; " + counters.refusalCounts());
    }
}
