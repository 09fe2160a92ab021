package dev.tideline.fanout.resume;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.channel.Positions;
import dev.tideline.fanout.channel.ResumePlan;
import dev.tideline.fanout.channel.RoutedChange;
import dev.tideline.fanout.delivery.DisconnectReason;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/**
 * Reading back from Kafka: a delete without a tenant header goes to the tenant this reader saw for
 * that document, never to whoever holds the same {@code _id} now.
 */
class KafkaRangeReaderTest {
    private static final TopicPartition TP = new TopicPartition("tl.shop.items", 0);
    private static final Namespace NS = new Namespace("shop", "items");
    private static final ChannelName ACME = new ChannelName("shop", "items", "acme");
    private static final ChannelName GLOBEX = new ChannelName("shop", "items", "globex");

    /**
     * acme's document 7 inserted (0) and deleted without a tenant header (1, no pre-images); then
     * globex inserts a document that reuses {@code _id} 7 (2): the live memory now says globex.
     */
    private static List<ConsumerRecord<byte[], byte[]>> reusedId() {
        return List.of(record(0, Op.INSERT, "acme"), record(1, Op.DELETE, null), record(2, Op.INSERT, "globex"));
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, Op op, String tenant) {
        BsonDocument doc = op == Op.DELETE ? null : new BsonDocument("_id", new BsonInt32(7)).append("tenant", new BsonString(tenant));
        ChangeEvent e = new ChangeEvent(op, NS, new BsonInt32(7), doc, new BsonTimestamp(1_700_000_000 + (int) offset, 1),
                1_700_000_000_000L, null);
        RecordHeaders headers = new RecordHeaders();
        headers.add(EventHeaders.KIND, EventHeaders.KIND_CHANGE.getBytes(StandardCharsets.UTF_8));
        headers.add(EventHeaders.NAMESPACE, "shop.items".getBytes(StandardCharsets.UTF_8));
        if (tenant != null) {
            headers.add(EventHeaders.TENANT, tenant.getBytes(StandardCharsets.UTF_8));
        }
        byte[] value = EnvelopeCodec.toBytes(EnvelopeCodec.toBson(e));
        return new ConsumerRecord<>(TP.topic(), TP.partition(), offset, 1_700_000_000_000L + offset, TimestampType.CREATE_TIME, 0,
                value.length, null, value, headers, Optional.empty());
    }

    /** Resumes {@code channel} from {@code position} up to offset 3; what the subscriber got, as op@offset. */
    private static List<String> resume(ChannelName channel, long position, int lookback) {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        consumer.updateBeginningOffsets(Map.of(TP, 0L));
        consumer.schedulePollTask(() -> reusedId().forEach(consumer::addRecord));
        ResumePlan plan = new ResumePlan(ResumePlan.Kind.KAFKA, new Positions(Map.of(TP, position)), Map.of(TP, 3L), List.of(),
                Set.of(), 0, null);
        Target target = new Target();
        String outcome = new KafkaRangeReader(consumer, new KafkaRangeReader.Settings(ValueFormat.BSON, 110, 1000, lookback),
                new Pacer(10_000)).run(target, 0, channel, plan);
        assertThat(outcome).isEqualTo("kafka");
        assertThat(target.finished).isTrue();
        return target.got;
    }

    @Test
    void aResumedDeleteWithoutTenantNeverReachesTheTenantThatReusedTheId() {
        // globex resumes from the delete; the reader has not seen document 7 before it (no look-back)
        assertThat(resume(GLOBEX, 1, 0)).containsExactly("insert@2");
        // nor with a look-back, which shows it the document was acme's
        assertThat(resume(GLOBEX, 1, 10)).containsExactly("insert@2");
    }

    @Test
    void aResumedDeleteGoesToTheTenantRecordedBeforeIt() {
        // acme resumes from the delete: the look-back read acme's insert of 7, so the delete is acme's
        assertThat(resume(ACME, 1, 10)).containsExactly("delete@1");
        // without seeing the document the reader cannot tell whose delete it was: not delivered (documented)
        assertThat(resume(ACME, 1, 0)).isEmpty();
        // from the start the range itself holds the insert
        assertThat(resume(ACME, 0, 0)).containsExactly("insert@0", "delete@1");
    }

    private static final class Target implements CatchUpTarget {
        final List<String> got = new ArrayList<>();
        boolean finished;

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public long pendingBytes() {
            return 0;
        }

        @Override
        public long queueMaxBytes() {
            return 1 << 20;
        }

        @Override
        public boolean deliver(int channel, RoutedChange change) {
            got.add(BsonDocument.parse(new String(change.json(), StandardCharsets.UTF_8)).getDocument("change").getString("op").getValue() + "@" + change.offset());
            return true;
        }

        @Override
        public void advance(int channel, TopicPartition tp, long next) {
        }

        @Override
        public void finish(int channel, Map<TopicPartition, Long> boundary) {
            finished = true;
        }

        @Override
        public void unrecoverable(int channel, String reason, Map<TopicPartition, Long> boundary) {
            throw new AssertionError("unrecoverable: " + reason);
        }

        @Override
        public void abort(DisconnectReason reason) {
            throw new AssertionError("aborted: " + reason);
        }
    }
}
