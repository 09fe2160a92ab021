package dev.tideline.sink;

import static dev.tideline.sink.TestRecords.SHOP_ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import de.bwaldvogel.mongo.MongoServer;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.DeepValues;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.sink.config.SinkConfig;
import dev.tideline.sink.write.RecordFailure;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Records are untrusted input: what the sink refuses, why, and that it sends nothing for them; and, for
 * the records it accepts, that every filter it SENDS matches by value only (the commands are captured
 * on the way to the server, so this holds whatever the server would make of them).
 */
class UntrustedRecordsTest {
    private static final String TOPIC = "tl.shop.orders";
    private MongoServer server;
    private MongoClient client;
    private String uri;
    private final List<BsonDocument> commands = Collections.synchronizedList(new ArrayList<>());
    private long offset;

    @BeforeEach
    void start() {
        server = new MongoServer(new AwaitingMemoryBackend());
        var address = server.bind();
        uri = "mongodb://127.0.0.1:" + address.getPort();
        CommandListener capture = new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                commands.add(event.getCommand().clone());
            }
        };
        client = MongoClients.create(MongoClientSettings.builder().applyConnectionString(new ConnectionString(uri))
                .addCommandListener(capture).build());
    }

    @AfterEach
    void stop() {
        client.close();
        server.shutdownNow();
    }

    private BatchApplier applier(Map<String, String> extra) {
        Map<String, String> props = new HashMap<>(Map.of("mongodb.uri", uri));
        props.putAll(extra);
        return BatchApplier.create(new SinkConfig(props), client);
    }

    private SinkRecord bson(ChangeEvent e) {
        return new SinkRecord(TOPIC, 0, null, EnvelopeCodec.toKey(e.id(), ValueFormat.BSON), null,
                EnvelopeCodec.toValue(e, ValueFormat.BSON), offset++);
    }

    private SinkRecord raw(Object key, Object value) {
        return new SinkRecord(TOPIC, 0, null, key, null, value, offset++);
    }

    private static ChangeEvent insert(Namespace ns, BsonValue id) {
        return new ChangeEvent(Op.INSERT, ns, id, new BsonDocument("_id", id).append("x", new BsonInt32(1)),
                new BsonTimestamp(100, 1), 0, null);
    }

    private static ChangeEvent delete(Namespace ns, BsonValue id) {
        return new ChangeEvent(Op.DELETE, ns, id, null, new BsonTimestamp(100, 2), 0, null);
    }

    /**
     * Every kind of harmful record, each with a word its refusal must contain. By identity: a record's
     * hashCode would recurse through a 10,000-deep value.
     */
    private Map<SinkRecord, String> poison() {
        Map<SinkRecord, String> p = new java.util.IdentityHashMap<>();
        BsonDocument exists = BsonDocument.parse("{$exists: true}");
        // ids that would act as operators or patterns
        p.put(raw(EnvelopeCodec.toKey(exists, ValueFormat.BSON), null), "'$exists'"); // a tombstone
        p.put(bson(delete(SHOP_ORDERS, exists)), "'$exists'");
        p.put(bson(delete(SHOP_ORDERS, new BsonRegularExpression(".*"))), "regular expression");
        p.put(bson(insert(SHOP_ORDERS, BsonDocument.parse("{a: {$gt: ''}}"))), "'$gt'");
        p.put(raw(Map.of("_id", Map.of("$regex", ".*")), null), "'$regex'");
        p.put(raw(null, "{\"operationType\": \"delete\", \"ns\": {\"db\": \"shop\", \"coll\": \"orders\"}, "
                + "\"documentKey\": {\"_id\": {\"$ne\": null}}}"), "'$ne'");
        p.put(raw(Map.of("id", "{\"$exists\": true}"), "{\"op\": \"d\", \"source\": {\"connector\": \"mongodb\", \"db\": \"shop\", "
                + "\"collection\": \"orders\", \"ts_ms\": 1000}, \"before\": null}"), "'$exists'"); // Debezium
        p.put(bson(insert(SHOP_ORDERS, new org.bson.BsonArray(List.of(new BsonInt32(1))))), "array");
        // namespaces the sink never writes, whatever the envelope or header says
        p.put(bson(insert(new Namespace("admin", "system.users"), new BsonInt32(1))), "admin");
        p.put(bson(insert(new Namespace("config", "settings"), new BsonInt32(2))), "config");
        p.put(bson(delete(new Namespace("local", "oplog.rs"), new BsonInt32(3))), "local");
        p.put(bson(insert(new Namespace("shop", "system.views"), new BsonInt32(4))), "system collection");
        p.put(bson(insert(new Namespace("shop", "_tideline_versions"), new BsonInt32(5))), "Tideline's own");
        SinkRecord headerOnly = raw(null, Map.of("_id", 6, "x", 1));
        headerOnly.headers().addString(EventHeaders.NAMESPACE, "admin.users");
        p.put(headerOnly, "admin");
        p.put(raw(null, "{\"operationType\": \"insert\", \"ns\": {\"db\": \"Admin\", \"coll\": \"x\"}, \"documentKey\": {\"_id\": 7},"
                + " \"fullDocument\": {\"_id\": 7}}"), "MongoDB's own");
        // too deep to decode, in every form
        p.put(raw(null, DeepValues.bsonEnvelope(8, 10_000)), "deeper than 104");
        p.put(raw(null, DeepValues.jsonEnvelope(9, 10_000)), "deeper than 104");
        p.put(raw(null, DeepValues.mapEnvelope(10, 10_000)), "deeper than 104");
        p.put(raw(DeepValues.bson(10_000), null), "deeper than 104"); // a deep key on a tombstone
        // too large to decode
        p.put(raw(null, EnvelopeCodec.toValue(new ChangeEvent(Op.INSERT, SHOP_ORDERS, new BsonInt32(11), new BsonDocument("_id",
                new BsonInt32(11)).append("pad", new BsonString("p".repeat(200_000))), null, 0, null), ValueFormat.BSON)), "record.max.bytes");
        p.put(raw(null, "{\"_id\": 12, \"pad\": \"" + "p".repeat(200_000) + "\"}"), "record.max.bytes");
        // a document MongoDB cannot take as a replacement
        p.put(raw(null, Map.of("_id", 13, "$set", Map.of("x", 1))), "'$set'");
        return p;
    }

    @Test
    void everyHarmfulRecordIsRefusedWithItsReasonAndNothingIsSentForIt() {
        Map<SinkRecord, String> poison = poison();
        commands.clear();
        BatchOutcome out = applier(Map.of("record.max.bytes", "131072")).apply(new ArrayList<>(poison.keySet()));

        assertThat(out.failures()).hasSize(poison.size());
        for (RecordFailure f : out.failures()) {
            System.out.println("refused: " + f.message());
            assertThat(f.message()).as("offset %d", f.record().kafkaOffset()).contains(poison.get(f.record()));
        }
        assertThat(out.written()).isZero();
        List<String> sent = commands.stream().map(c -> c.getFirstKey()).filter(k -> !k.equals("hello") && !k.equals("isMaster")
                && !k.equals("ismaster") && !k.equals("buildinfo") && !k.equals("buildInfo") && !k.equals("endSessions")).toList();
        assertThat(sent).as("commands sent for refused records").isEmpty();
        assertThat(client.listDatabaseNames().into(new ArrayList<>())).doesNotContain("shop", "admin_", "config_");
    }

    @Test
    void harmfulRecordsAmongGoodOnesLeaveTheGoodOnesApplied() {
        List<SinkRecord> batch = new ArrayList<>();
        batch.add(bson(insert(SHOP_ORDERS, new BsonInt32(100))));
        batch.addAll(poison().keySet());
        batch.add(bson(insert(SHOP_ORDERS, BsonDocument.parse("{region: 'eu', n: 1}"))));
        BatchOutcome out = applier(Map.of("record.max.bytes", "131072")).apply(batch);
        assertThat(out.written()).isEqualTo(2);
        assertThat(out.failures()).hasSize(batch.size() - 2);
        assertThat(client.getDatabase("shop").getCollection("orders").countDocuments()).isEqualTo(2);
        assertThat(client.getDatabase("shop").getCollection("_tideline_versions").countDocuments()).isEqualTo(2);
    }

    @Test
    void anAllowListOfDatabasesRefusesEveryOtherDestination() {
        BatchOutcome out = applier(Map.of("database.allow", "archive")).apply(List.of(
                bson(insert(SHOP_ORDERS, new BsonInt32(1))),
                bson(insert(new Namespace("archive", "orders"), new BsonInt32(2)))));
        assertThat(out.written()).isEqualTo(1);
        assertThat(out.failures()).singleElement().extracting(RecordFailure::message).asString()
                .contains("database 'shop' is not in database.allow [archive]");
        assertThat(client.listDatabaseNames().into(new ArrayList<>())).contains("archive").doesNotContain("shop");
    }

    @Test
    void everyFilterTheSinkSendsMatchesIdsByValueOnly() {
        BatchApplier applier = applier(Map.of());
        BsonValue compound = BsonDocument.parse("{region: 'eu', n: 1}");
        BsonValue plain = new BsonInt32(2);
        applier.apply(List.of(bson(insert(SHOP_ORDERS, compound)), bson(insert(SHOP_ORDERS, plain)),
                bson(insert(SHOP_ORDERS, new BsonString("three")))));
        // a partial update (read of the destination's copy), a delete, a tombstone, a replace
        String update = "{\"_id\": {\"_data\": \"01\"}, \"operationType\": \"update\", \"clusterTime\": {\"$timestamp\": {\"t\": 200, "
                + "\"i\": 1}}, \"ns\": {\"db\": \"shop\", \"coll\": \"orders\"}, \"documentKey\": {\"_id\": 2}, "
                + "\"updateDescription\": {\"updatedFields\": {\"x\": 5}, \"removedFields\": []}}";
        SinkRecord tombstone = raw(EnvelopeCodec.toKey(new BsonString("three"), ValueFormat.BSON), null);
        tombstone.headers().addString(EventHeaders.NAMESPACE, "shop.orders");
        applier.apply(List.of(raw(null, update), bson(delete(SHOP_ORDERS, compound)), tombstone));

        List<BsonDocument> filters = new ArrayList<>();
        for (BsonDocument c : commands) {
            switch (c.getFirstKey()) {
                case "update" -> c.getArray("updates").forEach(u -> filters.add(u.asDocument().getDocument("q")));
                case "delete" -> c.getArray("deletes").forEach(d -> filters.add(d.asDocument().getDocument("q")));
                case "find" -> filters.add(c.getDocument("filter"));
                default -> { }
            }
        }
        System.out.println("filters sent: " + filters);
        assertThat(filters).isNotEmpty();
        for (BsonDocument f : filters) {
            BsonValue id = f.get("_id");
            assertThat(id).as("filter %s", f).isNotNull();
            assertThat(id.isDocument()).as("filter %s", f).isTrue();
            String op = id.asDocument().getFirstKey();
            assertThat(op).as("filter %s", f).isIn("$eq", "$in");
            if (op.equals("$in")) {
                id.asDocument().getArray("$in").forEach(v -> assertThat(dev.tideline.sink.check.IdRules.problem(v)).isEmpty());
            }
        }
        assertThat(filters).anySatisfy(f -> assertThat(f).isEqualTo(new BsonDocument("_id", new BsonDocument("$eq", compound))));
        // the compound id is deleted, 2 updated; the bare tombstone of "three" cannot prove it is newer than the
        // versioned insert, so the stale-write guard keeps that document (and sends no filter for it)
        assertThat(client.getDatabase("shop").getCollection("orders", RawBsonDocument.class).find(
                new BsonDocument("_id", new BsonInt32(2))).first().getInt32("x").getValue()).isEqualTo(5);
        assertThat(client.getDatabase("shop").getCollection("orders").countDocuments()).isEqualTo(2);
    }

    @Test
    void aRecordWithATopLevelDollarFieldOrANulInAFieldNameDoesNotStopTheBatch() {
        ConnectHeaders none = new ConnectHeaders();
        Map<String, Object> nul = new LinkedHashMap<>();
        nul.put("_id", 20);
        nul.put("inner", Map.of("a\0b", 1));
        BatchOutcome out = applier(Map.of("database", "dest")).apply(List.of(
                new SinkRecord(TOPIC, 0, null, null, null, nul, offset++, null, null, none),
                raw(null, Map.of("_id", 21, "ok", true))));
        assertThat(out.written()).isEqualTo(1);
        assertThat(out.failures()).singleElement().extracting(RecordFailure::message).asString().contains("NUL");
    }

    @Test
    void shardKeyFieldsTravelIntoTheWriteFilterAndForgedOnesAreRefused() {
        BsonDocument documentKey = BsonDocument.parse("{region: 'eu', _id: 30}");
        ChangeEvent sharded = new ChangeEvent(Op.INSERT, SHOP_ORDERS, new BsonInt32(30), BsonDocument.parse("{_id: 30, region: 'eu'}"),
                new BsonTimestamp(100, 1), 0, null).withDocumentKey(documentKey);
        ChangeEvent gone = delete(SHOP_ORDERS, new BsonInt32(30)).withDocumentKey(documentKey);
        String officialDelete = "{\"operationType\": \"delete\", \"ns\": {\"db\": \"shop\", \"coll\": \"orders\"}, "
                + "\"documentKey\": {\"_id\": 31, \"$where\": \"sleep(1000)\"}}";
        commands.clear();
        BatchApplier applier = applier(Map.of());
        BatchOutcome first = applier.apply(List.of(bson(sharded), raw(null, officialDelete)));
        applier.apply(List.of(bson(gone)));

        assertThat(first.failures()).singleElement().extracting(RecordFailure::message).asString()
                .contains("shard key field '$where'");
        List<BsonDocument> filters = new ArrayList<>();
        for (BsonDocument c : commands) {
            if (c.getFirstKey().equals("update") && c.getString("update").getValue().equals("orders")) {
                c.getArray("updates").forEach(u -> filters.add(u.asDocument().getDocument("q")));
            }
            if (c.getFirstKey().equals("delete")) {
                c.getArray("deletes").forEach(d -> filters.add(d.asDocument().getDocument("q")));
            }
        }
        assertThat(filters).containsExactly(BsonDocument.parse("{_id: {$eq: 30}, region: {$eq: 'eu'}}"),
                BsonDocument.parse("{_id: {$eq: 30}, region: {$eq: 'eu'}}"));
        assertThat(client.getDatabase("shop").getCollection("orders").countDocuments()).isZero();
    }
}
