package dev.tideline.sink;

import static dev.tideline.sink.TestRecords.SHOP_ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.model.Filters;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.sink.config.WriteMode;
import dev.tideline.sink.decode.SinkChange;
import dev.tideline.sink.guard.VersionStore;
import dev.tideline.sink.plan.NamespaceBatch;
import dev.tideline.sink.route.RoutedChange;
import dev.tideline.sink.plan.WriteFilter;
import dev.tideline.sink.write.BulkWriteExecutor;
import dev.tideline.sink.write.RecordFailure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Records an attacker who can produce to a change topic would send: versions from the future, partial
 * updates MongoDB would refuse (padding and depth bombs), and records whose processing throws Errors. Each is
 * refused for itself, with its reason, and the rest of the batch is applied. Against an in-process
 * mongo-java-server.
 */
class HostileRecordsTest {
    private static final String TOPIC = "src.shop.orders";
    private DestinationServer destination;
    private long offset;

    @BeforeEach
    void start() {
        destination = new DestinationServer();
    }

    @AfterEach
    void stop() {
        destination.close();
    }

    private BatchApplier applier(Map<String, String> extra) {
        return destination.applier(extra);
    }

    private static int now() {
        return (int) (System.currentTimeMillis() / 1000);
    }

    private SinkRecord envelope(Op op, int id, BsonDocument doc, int clusterSeconds) {
        ChangeEvent e = new ChangeEvent(op, SHOP_ORDERS, new BsonInt32(id), doc, new BsonTimestamp(clusterSeconds, 1), 0L, null);
        return new SinkRecord(TOPIC, 0, null, EnvelopeCodec.toKey(e.id(), ValueFormat.BSON), null,
                EnvelopeCodec.toValue(e, ValueFormat.BSON), offset++);
    }

    /** A change without a cluster time: its version is the configured version field's. */
    private SinkRecord withoutClusterTime(int id, BsonDocument doc) {
        ChangeEvent e = new ChangeEvent(Op.INSERT, SHOP_ORDERS, new BsonInt32(id), doc, null, 0L, null);
        return new SinkRecord(TOPIC, 0, null, EnvelopeCodec.toKey(e.id(), ValueFormat.BSON), null,
                EnvelopeCodec.toValue(e, ValueFormat.BSON), offset++);
    }

    /** An update event of MongoDB's official connector without fullDocument: a partial update. */
    private SinkRecord partialUpdate(int id, BsonDocument updatedFields, List<String> removed) {
        BsonArray removedFields = new BsonArray();
        removed.forEach(r -> removedFields.add(new BsonString(r)));
        BsonDocument event = new BsonDocument("_id", new BsonDocument("_data", new BsonString("token" + offset)))
                .append("operationType", new BsonString("update"))
                .append("ns", new BsonDocument("db", new BsonString("shop")).append("coll", new BsonString("orders")))
                .append("documentKey", new BsonDocument("_id", new BsonInt32(id)))
                .append("updateDescription", new BsonDocument("updatedFields", updatedFields).append("removedFields", removedFields))
                .append("clusterTime", new BsonTimestamp(now() - 10, (int) offset + 1));
        return new SinkRecord(TOPIC, 0, null, null, null, EnvelopeCodec.toBytes(event), offset++);
    }

    private BsonDocument find(int id) {
        return destination.client.getDatabase("dest").getCollection("orders", BsonDocument.class)
                .find(Filters.eq("_id", id)).first();
    }

    private BsonDocument versionEntry(int id) {
        return destination.client.getDatabase("dest").getCollection(VersionStore.COLLECTION, BsonDocument.class)
                .find(Filters.eq("_id", new BsonDocument("ns", new BsonString("orders")).append("id", new BsonInt32(id)))).first();
    }

    private static BsonDocument doc(int id, String name) {
        return new BsonDocument("_id", new BsonInt32(id)).append("name", new BsonString(name));
    }

    @Test
    void aVersionFromTheFutureIsRefusedAndNeitherPinsTheDocumentNorBeatsTheBatchsLaterChanges() {
        BatchApplier a = applier(Map.of("version.max.ahead.ms", "60000"));
        int t = now();
        a.apply(List.of(envelope(Op.INSERT, 1, doc(1, "honest"), t - 100)));
        SinkRecord forged = envelope(Op.REPLACE, 1, doc(1, "forged"), t + 3600);
        SinkRecord within = envelope(Op.REPLACE, 2, doc(2, "skewed"), t + 30); // a clock 30 s ahead: within the bound
        BatchOutcome out = a.apply(List.of(forged, envelope(Op.REPLACE, 1, doc(1, "later"), t - 50), within));
        assertThat(out.failures()).hasSize(1);
        RecordFailure f = out.failures().get(0);
        assertThat(f.record()).isSameAs(forged);
        assertThat(f.reason()).contains("its version Timestamp(" + (t + 3600) + ", 1)").contains("ahead of this worker's clock")
                .contains("version.max.ahead.ms (60000 ms)");
        assertThat(find(1).getString("name").getValue()).isEqualTo("later");
        assertThat(find(2).getString("name").getValue()).isEqualTo("skewed");
        assertThat(versionEntry(1).getTimestamp("v")).isEqualTo(new BsonTimestamp(t - 50, 1));

        // a forged delete from the future neither deletes nor leaves a version behind
        SinkRecord forgedDelete = envelope(Op.DELETE, 1, null, t + 7200);
        assertThat(a.apply(List.of(forgedDelete)).failures()).extracting(RecordFailure::record).containsExactly(forgedDelete);
        a.apply(List.of(envelope(Op.REPLACE, 1, doc(1, "still applies"), t - 40)));
        assertThat(find(1).getString("name").getValue()).isEqualTo("still applies");
    }

    @Test
    void aDateOfTheVersionFieldAheadOfTheClockIsRefused() {
        BatchApplier a = applier(Map.of("version.field", "updatedAt"));
        long now = System.currentTimeMillis();
        SinkRecord ahead = withoutClusterTime(1, doc(1, "x").append("updatedAt", new BsonDateTime(now + 24 * 3_600_000L)));
        SinkRecord fine = withoutClusterTime(2, doc(2, "y").append("updatedAt", new BsonDateTime(now)));
        BatchOutcome out = a.apply(List.of(ahead, fine));
        assertThat(out.failures()).extracting(RecordFailure::record).containsExactly(ahead);
        assertThat(out.failures().get(0).reason()).contains("its version date ");
        assertThat(find(1)).isNull();
        assertThat(find(2)).isNotNull();
    }

    @Test
    void partialUpdatesMongoDbWouldRefuseAreRefusedWithoutBuildingAnythingAndTheRestIsApplied() {
        BatchApplier a = applier(Map.of());
        a.apply(List.of(envelope(Op.INSERT, 1, doc(1, "one").append("a", new BsonArray()), now() - 100),
                envelope(Op.INSERT, 2, doc(2, "two"), now() - 100)));
        SinkRecord padding = partialUpdate(1, new BsonDocument("a.999999999", new BsonInt32(1)), List.of());
        SinkRecord deepKey = partialUpdate(2, new BsonDocument("b" + ".b".repeat(30_000), new BsonInt32(1)), List.of());
        SinkRecord deepRemoval = partialUpdate(2, new BsonDocument(), List.of("c" + ".c".repeat(100)));
        SinkRecord honest = partialUpdate(1, new BsonDocument("a.2", new BsonString("x")).append("name", new BsonString("uno")), List.of());
        BatchOutcome out = a.apply(List.of(padding, deepKey, deepRemoval, honest));
        Map<SinkRecord, String> reasons = new HashMap<>();
        out.failures().forEach(f -> reasons.put(f.record(), f.reason()));
        assertThat(reasons).containsOnlyKeys(padding, deepKey, deepRemoval);
        assertThat(reasons.get(padding)).contains("999999999").contains("MongoDB pads at most 1500000");
        assertThat(reasons.get(deepKey)).contains("60001 characters").contains("more than 100 parts");
        assertThat(reasons.get(deepRemoval)).contains("more than 100 parts");
        // the padding bomb was refused, so the honest update of the same document applies to the untouched array
        assertThat(find(1)).isEqualTo(BsonDocument.parse("{_id: 1, name: 'uno', a: [null, null, 'x']}"));
        assertThat(find(2)).isEqualTo(doc(2, "two"));
    }

    /**
     * A partial update that would give the document a top-level {@code $}-prefixed field (MongoDB refuses one in a
     * replacement): every record folded into that change is refused with the reason, no version is recorded for it,
     * and the rest of the batch is applied.
     */
    @Test
    void aPartialUpdateThatWouldLeaveADollarPrefixedTopLevelFieldIsRefusedBeforeItsVersionIsRecorded() {
        BatchApplier a = applier(Map.of());
        a.apply(List.of(envelope(Op.INSERT, 1, doc(1, "one"), now() - 100), envelope(Op.INSERT, 2, doc(2, "two"), now() - 100)));
        BsonDocument versionBefore = versionEntry(1);
        SinkRecord dollar = partialUpdate(1, new BsonDocument("$where", new BsonString("1")), List.of());
        SinkRecord honest = partialUpdate(2, new BsonDocument("name", new BsonString("TWO")), List.of());

        BatchOutcome out = a.apply(List.of(dollar, honest));

        assertThat(out.failures()).singleElement().satisfies(f -> {
            assertThat(f.record()).isSameAs(dollar);
            assertThat(f.reason()).contains("_id 1").contains("'$where'").contains("$-prefixed top-level");
        });
        assertThat(out.written()).isEqualTo(1);
        assertThat(find(1)).isEqualTo(doc(1, "one"));
        assertThat(versionEntry(1)).as("the refused change's version is not recorded").isEqualTo(versionBefore);
        assertThat(find(2)).isEqualTo(doc(2, "TWO"));
    }

    /** A record whose headers throw, as a decoder or codec overflowing its stack or the heap on this record would. */
    private SinkRecord throwing(Error error) {
        return new SinkRecord(TOPIC, 0, null, null, null, new byte[0], offset++) {
            @Override
            public Headers headers() {
                throw error;
            }
        };
    }

    @Test
    void aStackOverflowOrOutOfMemoryWhileReadingOneRecordRefusesThatRecordOnly() {
        BatchApplier a = applier(Map.of());
        SinkRecord overflow = throwing(new StackOverflowError());
        SinkRecord oom = throwing(new OutOfMemoryError("Java heap space"));
        BatchOutcome out = a.apply(List.of(overflow, envelope(Op.INSERT, 1, doc(1, "one"), now() - 10), oom));
        assertThat(out.failures()).extracting(RecordFailure::record).containsExactly(overflow, oom);
        assertThat(out.failures().get(0).reason()).contains("while reading it").contains("StackOverflowError");
        assertThat(out.failures().get(1).reason()).contains("OutOfMemoryError: Java heap space");
        assertThat(find(1)).isEqualTo(doc(1, "one"));
    }

    @Test
    void anErrorThatIsNotTheRecordsDoingStillStopsTheBatch() {
        SinkRecord broken = throwing(new NoClassDefFoundError("org/bson/Missing"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> applier(Map.of()).apply(List.of(broken)))
                .isInstanceOf(NoClassDefFoundError.class);
    }

    @Test
    void aDocumentWhoseEncodingOverflowsTheStackIsRefusedAndTheRestOfTheChunkIsWritten() {
        // a document whose encoding overflows the stack (the codec's own depth limit turns real nesting into an
        // exception first: this stands for whatever the encoding of one record may still throw)
        BsonDocument cyclic = new BsonDocument("_id", new BsonInt32(1)) {
            @Override
            public java.util.Set<Map.Entry<String, BsonValue>> entrySet() {
                throw new StackOverflowError();
            }
        };
        List<RoutedChange> writes = new ArrayList<>();
        for (BsonDocument d : List.of(cyclic, doc(2, "two"))) {
            BsonValue id = d.get("_id");
            SinkChange c = new SinkChange(new SinkRecord(TOPIC, 0, null, null, null, null, offset++), SinkChange.Kind.WRITE,
                    SHOP_ORDERS, id, d, null);
            writes.add(new RoutedChange(c, new dev.tideline.event.Namespace("dest", "orders")));
        }
        List<RecordFailure> failures = new BulkWriteExecutor(destination.client, WriteMode.UPSERT, new WriteFilter(List.of()))
                .execute(new NamespaceBatch(new dev.tideline.event.Namespace("dest", "orders"), writes), 100);
        assertThat(failures).hasSize(1);
        assertThat(failures.get(0).reason()).contains("while encoding the document _id 1").contains("StackOverflowError");
        assertThat(find(2)).isEqualTo(doc(2, "two"));
        assertThat(find(1)).isNull();
    }
}
