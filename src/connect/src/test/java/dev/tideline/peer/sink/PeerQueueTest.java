package dev.tideline.peer.sink;

import static dev.tideline.peer.sink.PeerRecordReaderTest.KEYS;
import static dev.tideline.peer.sink.PeerRecordReaderTest.NS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.peer.TenantScope;
import dev.tideline.sink.write.RecordFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonString;
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
