package dev.tideline.sink;

import static dev.tideline.sink.TestRecords.SHOP_ORDERS;
import static dev.tideline.sink.TestRecords.doc;
import static dev.tideline.sink.TestRecords.envelopeRecord;
import static dev.tideline.sink.TestRecords.event;
import static dev.tideline.sink.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import de.bwaldvogel.mongo.MongoServer;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.sink.config.SinkConfig;
import dev.tideline.sink.guard.VersionStore;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The whole apply path (decode → route → plan → guard → bulk write) against an in-process mongo-java-server. */
class BatchApplierTest {
    private MongoServer server;
    private MongoClient client;
    private String uri;

    @BeforeEach
    void startServer() {
        server = new MongoServer(new AwaitingMemoryBackend());
        server.bind("127.0.0.1", 0);
        InetSocketAddress a = server.getLocalAddress();
        uri = "mongodb://127.0.0.1:" + a.getPort();
        client = MongoClients.create(uri);
    }

    @AfterEach
    void stopServer() {
        client.close();
        server.shutdownNow();
    }

    private BatchApplier applier(Map<String, String> extra) {
        Map<String, String> props = new HashMap<>(Map.of("mongodb.uri", uri, "database", "dest"));
        props.putAll(extra);
        return BatchApplier.create(new SinkConfig(props), client);
    }

    private MongoCollection<RawBsonDocument> orders() {
        return client.getDatabase("dest").getCollection("orders", RawBsonDocument.class);
    }

    private BsonDocument find(int id) {
        RawBsonDocument raw = orders().find(new BsonDocument("_id", new BsonInt32(id))).first();
        return raw == null ? null : raw;
    }

    private static SinkRecord change(long offset, Op op, int id, String name, int clusterSeconds) {
        return envelopeRecord("orders-topic", offset, event(op, SHOP_ORDERS, id, op == Op.DELETE ? null : doc(id, name),
                clusterSeconds), offset % 2 == 0 ? ValueFormat.BSON : ValueFormat.JSON);
    }

    @Test
    void appliesInsertsUpdatesAndDeletesByteIdentically() {
        BatchOutcome out = applier(Map.of()).apply(List.of(
                change(0, Op.INSERT, 1, "one", 10),
                change(1, Op.INSERT, 2, "two", 11),
                change(2, Op.UPDATE, 1, "one-b", 12),
                change(3, Op.DELETE, 2, null, 13),
                change(4, Op.READ, 3, "three", 14)));

        System.out.println("apply: " + out);
        assertThat(out.written()).isEqualTo(3);
        assertThat(out.superseded()).isEqualTo(2);
        assertThat(EnvelopeCodec.toBytes(find(1))).isEqualTo(EnvelopeCodec.toBytes(doc(1, "one-b")));
        assertThat(find(2)).isNull();
        assertThat(orders().countDocuments()).isEqualTo(2);
        // versions live in the sidecar, never in the documents
        assertThat(client.getDatabase("dest").getCollection(VersionStore.COLLECTION).countDocuments()).isEqualTo(3);
        assertThat(find(3).keySet()).containsExactly("_id", "name");
    }

    @Test
    void replayingTheSameRecordsChangesNothing() {
        List<SinkRecord> batch = List.of(change(0, Op.INSERT, 1, "a", 10), change(1, Op.UPDATE, 1, "b", 11),
                change(2, Op.INSERT, 2, "c", 12));
        applier(Map.of()).apply(batch);
        List<RawBsonDocument> before = orders().find().into(new ArrayList<>());

        BatchOutcome replay = applier(Map.of()).apply(batch);

        assertThat(replay.stale()).isZero(); // equal versions are applied again
        assertThat(orders().find().into(new ArrayList<>())).isEqualTo(before);
    }

    @Test
    void olderChangeAfterNewerDoesNotOverwriteAndLateDeleteDoesNotRemoveReinsert() {
        BatchApplier applier = applier(Map.of());
        applier.apply(List.of(change(0, Op.INSERT, 1, "new", 20), change(1, Op.INSERT, 2, "reinserted", 30)));

        BatchOutcome late = applier.apply(List.of(change(2, Op.UPDATE, 1, "old", 15), change(3, Op.DELETE, 2, null, 25)));

        System.out.println("late changes: " + late);
        assertThat(late.stale()).isEqualTo(2);
        assertThat(find(1).getString("name").getValue()).isEqualTo("new");
        assertThat(find(2).getString("name").getValue()).isEqualTo("reinserted");
    }

    @Test
    void olderChangeDoesNotResurrectADeletedDocumentButTombstoneAfterDeleteIsHarmless() {
        BatchApplier applier = applier(Map.of());
        applier.apply(List.of(change(0, Op.INSERT, 1, "x", 10), change(1, Op.DELETE, 1, null, 20)));
        SinkRecord tombstone = record("orders-topic", 2, EnvelopeCodec.toKey(new BsonInt32(1), ValueFormat.BSON), null);
        tombstone.headers().addString("tl.ns", "shop.orders");

        BatchOutcome stale = applier.apply(List.of(change(3, Op.UPDATE, 1, "stale", 15)));
        BatchOutcome tomb = applier.apply(List.of(tombstone));

        assertThat(stale.stale()).isEqualTo(1);
        assertThat(tomb.written()).isEqualTo(1); // a delete of an absent document: harmless
        assertThat(find(1)).isNull();
    }

    @Test
    void guardOffAppliesInArrivalOrder() {
        BatchApplier applier = applier(Map.of("stale.guard", "off"));
        applier.apply(List.of(change(0, Op.INSERT, 1, "new", 20)));
        applier.apply(List.of(change(1, Op.UPDATE, 1, "old", 10)));
        assertThat(find(1).getString("name").getValue()).isEqualTo("old");
        assertThat(client.getDatabase("dest").getCollection(VersionStore.COLLECTION).countDocuments()).isZero();
    }

    @Test
    void refusedAndMalformedRecordsAreIsolatedWhileTheRestIsApplied() {
        orders().createIndex(Indexes.ascending("name"), new IndexOptions().unique(true));
        BsonDocument huge = doc(5, "huge").append("blob", new BsonBinary(new byte[17 * 1024 * 1024]));
        List<SinkRecord> batch = List.of(
                change(0, Op.INSERT, 1, "taken", 10),
                change(1, Op.INSERT, 2, "taken", 11),          // duplicate on the unique index
                record("orders-topic", 2, null, "{not json"),  // malformed JSON
                record("orders-topic", 3, null, 42L),          // not a document
                envelopeRecord("orders-topic", 4, event(Op.INSERT, SHOP_ORDERS, 5, huge, 12), ValueFormat.BSON),
                change(5, Op.INSERT, 6, "fine", 13));

        BatchOutcome out = applier(Map.of()).apply(batch);

        System.out.println("poison batch: " + out);
        out.failures().forEach(f -> System.out.println("  " + f.message()));
        assertThat(out.failures()).hasSize(4);
        assertThat(out.failures()).extracting(f -> f.record().kafkaOffset()).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
        assertThat(out.failures()).anySatisfy(f -> assertThat(f.message())
                .contains("topic orders-topic, partition 0, offset 1").contains("code 11000"));
        assertThat(out.failures()).anySatisfy(f -> assertThat(f.message()).contains("offset 4").contains("10334"));
        assertThat(find(1)).isNotNull();
        assertThat(find(6)).isNotNull();
        assertThat(find(2)).isNull();
        assertThat(find(5)).isNull();
    }

    @Test
    void updateModeDoesNotInsert() {
        applier(Map.of("write.mode", "update")).apply(List.of(change(0, Op.INSERT, 1, "x", 10)));
        assertThat(find(1)).isNull();
    }

    @Test
    void excludedCollectionsAreLeftToAnotherDestination() {
        BatchOutcome out = applier(Map.of("collection.exclude", "shop\\.orders")).apply(List.of(change(0, Op.INSERT, 1, "x", 10)));
        assertThat(out.filtered()).isEqualTo(1);
        assertThat(find(1)).isNull();
    }

    @Test
    void chunksAboveTheBulkSizeAllLand() {
        List<SinkRecord> batch = new ArrayList<>();
        for (int i = 0; i < 2345; i++) {
            batch.add(change(i, Op.INSERT, i, "n" + i, 10));
        }
        BatchOutcome out = applier(Map.of("bulk.chunk.size", "1000")).apply(batch);
        assertThat(out.written()).isEqualTo(2345);
        assertThat(orders().countDocuments()).isEqualTo(2345);
    }

    /** An update event of the official connector's default output (no fullDocument), as StringConverter gives it. */
    private static SinkRecord officialUpdate(long offset, int id, String description, int clusterSeconds) {
        String value = "{\"_id\": {\"_data\": \"0" + offset + "\"}, \"operationType\": \"update\", "
                + "\"clusterTime\": {\"$timestamp\": {\"t\": " + clusterSeconds + ", \"i\": 1}}, "
                + "\"ns\": {\"db\": \"shop\", \"coll\": \"orders\"}, \"documentKey\": {\"_id\": " + id + "}, "
                + "\"updateDescription\": " + description + "}";
        return record("orders-topic", offset, null, value);
    }

    @Test
    void partialUpdatesApplyOntoTheDestinationsDocumentAcrossBatches() {
        BatchApplier applier = applier(Map.of());
        applier.apply(List.of(change(0, Op.INSERT, 1, "one", 10), change(1, Op.INSERT, 2, "two", 10)));

        BatchOutcome out = applier.apply(List.of(
                officialUpdate(2, 1, "{\"updatedFields\": {\"qty\": 5, \"tags\": [1, 2, 3]}, \"removedFields\": [\"name\"]}", 11),
                officialUpdate(3, 1, "{\"updatedFields\": {\"tags.0\": 9}, \"truncatedArrays\": [{\"field\": \"tags\", \"newSize\": 2}]}", 12),
                officialUpdate(4, 2, "{\"updatedFields\": {\"name\": \"TWO\"}, \"removedFields\": []}", 11)));

        System.out.println("partial updates: " + out);
        assertThat(out.failures()).isEmpty();
        assertThat(out.written()).isEqualTo(2);
        assertThat(find(1)).isEqualTo(BsonDocument.parse("{_id: 1, qty: 5, tags: [9, 2]}"));
        assertThat(find(2)).isEqualTo(BsonDocument.parse("{_id: 2, name: 'TWO'}"));
    }

    @Test
    void aPartialUpdateOfAnAbsentDocumentIsRefusedAndLeavesNoHalfDocumentNorVersion() {
        BatchOutcome out = applier(Map.of()).apply(List.of(officialUpdate(0, 7, "{\"updatedFields\": {\"qty\": 5}}", 11)));

        assertThat(out.written()).isZero();
        assertThat(out.failures()).singleElement().satisfies(f -> assertThat(f.message())
                .contains("update without full document for _id 7, which is absent at the destination dest.orders")
                .contains("change.stream.full.document=updateLookup"));
        assertThat(find(7)).isNull();
        assertThat(client.getDatabase("dest").getCollection(VersionStore.COLLECTION).countDocuments()).isZero();
    }

    @Test
    void aStalePartialUpdateNeverOverwritesANewerDocumentNorReportsADeletedOneAbsent() {
        BatchApplier applier = applier(Map.of());
        applier.apply(List.of(change(0, Op.INSERT, 1, "new", 20), change(1, Op.INSERT, 2, "x", 10), change(2, Op.DELETE, 2, null, 30)));

        // a replay after a crash: the updates come again after what followed them was applied
        BatchOutcome late = applier.apply(List.of(officialUpdate(3, 1, "{\"updatedFields\": {\"name\": \"old\"}}", 15),
                officialUpdate(4, 2, "{\"updatedFields\": {\"name\": \"y\"}}", 25)));

        assertThat(late.stale()).isEqualTo(2);
        assertThat(late.failures()).isEmpty();
        assertThat(find(1).getString("name").getValue()).isEqualTo("new");
        assertThat(find(2)).isNull();
    }
}
