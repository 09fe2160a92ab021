package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.DeepValues;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.ClassMongo;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Records are untrusted input, on the real worker: ids that would act as query operators or patterns,
 * namespaces naming admin, config, local, system.* or Tideline's own collections (by envelope, header or
 * foreign event), values 10,000 levels deep and oversized values, in the BSON, text and JSON forms. The
 * sinks run WITHOUT {@code database}, so each record names its own destination database: the riskiest
 * configuration. Each record must land in the dead letter queue with its reason, the destination must
 * stay byte-identical, and every task must stay RUNNING throughout (and keep applying afterwards).
 */
class SinkUntrustedRecordsIT {
    private static final String BSON_TOPIC = "sink-it-untrusted-bson";
    private static final String TEXT_TOPIC = "sink-it-untrusted-text";
    private static final String JSON_TOPIC = "sink-it-untrusted-json";
    private static final String DLQ = "sink-it-untrusted-dlq";
    private static final List<String> CONNECTORS = List.of("untrusted-bson", "untrusted-text", "untrusted-json");
    private static final Namespace ORDERS = new Namespace("untrusted", "orders");
    /** Namespaces the poison aims at inside MongoDB's own databases, compared before and after. */
    private static final List<Namespace> RESERVED_TARGETS = List.of(new Namespace("admin", "system.users"),
            new Namespace("admin", "users"), new Namespace("config", "settings"));
    private static final String POISON = "poison";

    private static final TestStack stack = TestStack.shared();
    @RegisterExtension
    static final ClassMongo destination = new ClassMongo();

    /** One harmful record: its label, the form it travels in, and a word its refusal must contain. */
    private record Poison(String kind, String topic, ProducerRecord<byte[], byte[]> record, String expect) {
    }

    @Test
    void everyHarmfulRecordGoesToTheDeadLetterQueueWithItsReasonAndNothingElseHappens() throws Exception {
        String bootstrap = stack.bootstrapServers();
        SinkItSupport.createLargeMessageTopic(bootstrap, BSON_TOPIC, 1);
        SinkItSupport.createLargeMessageTopic(bootstrap, TEXT_TOPIC, 1);
        stack.createTopic(JSON_TOPIC, 1);
        SinkItSupport.createLargeMessageTopic(bootstrap, DLQ, 1);
        ConnectRest rest = stack.rest();
        rest.putConnector("untrusted-bson", config(BSON_TOPIC, "org.apache.kafka.connect.converters.ByteArrayConverter"));
        rest.putConnector("untrusted-text", config(TEXT_TOPIC, "org.apache.kafka.connect.storage.StringConverter"));
        rest.putConnector("untrusted-json", config(JSON_TOPIC, "org.apache.kafka.connect.json.JsonConverter"));
        for (String c : CONNECTORS) {
            rest.awaitRunning(c, 1, Duration.ofSeconds(60));
        }

        // What a legitimate source wrote before: 20 documents (and their versions), in each form.
        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(bootstrap)) {
            for (int id = 1; id <= 20; id++) {
                SinkItSupport.send(p, BSON_TOPIC, 0, good(id), ValueFormat.BSON);
            }
            p.send(new ProducerRecord<>(TEXT_TOPIC, 0, null, EnvelopeCodec.toBson(good(21)).toJson().getBytes(StandardCharsets.UTF_8)));
            SinkItSupport.send(p, JSON_TOPIC, 0, good(22), ValueFormat.JSON);
            p.flush();
        }
        MongoClient client = destination.client();
        await("the 22 legitimate documents applied", Duration.ofMinutes(2),
                () -> SinkItSupport.snapshot(client, ORDERS).size() == 22);
        Map<String, Map<BsonValue, byte[]>> before = destinationState(client);

        List<String> states = Collections.synchronizedList(new ArrayList<>());
        ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor();
        watcher.scheduleAtFixedRate(() -> CONNECTORS.forEach(c -> states.add(c + " " + state(rest.statusOrEmpty(c)))),
                0, 250, TimeUnit.MILLISECONDS);
        List<Poison> poison = poison();
        List<ConsumerRecord<byte[], byte[]>> dead;
        try {
            try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(bootstrap)) {
                for (Poison x : poison) {
                    x.record().headers().add(POISON, x.kind().getBytes(StandardCharsets.UTF_8));
                    p.send(x.record());
                }
                p.flush();
            }
            dead = TopicReader.readUntil(bootstrap, DLQ, poison.size(), Duration.ofMinutes(3));
            // anything the sinks would still write after reporting the last record: written once each sink has
            // committed past the last record of its topic (Connect commits only what the task flushed)
            List<String> topics = List.of(BSON_TOPIC, TEXT_TOPIC, JSON_TOPIC);
            for (int i = 0; i < CONNECTORS.size(); i++) {
                SinkItSupport.awaitCommittedThroughEnd(bootstrap, "connect-" + CONNECTORS.get(i), List.of(topics.get(i)),
                        Duration.ofMinutes(1));
            }
        } finally {
            watcher.shutdown();
            watcher.awaitTermination(5, TimeUnit.SECONDS);
        }
        Map<String, Map<BsonValue, byte[]>> after = destinationState(client);

        Map<String, String> reasons = new TreeMap<>();
        Map<String, Integer> counts = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            String kind = header(r, POISON);
            counts.merge(kind, 1, Integer::sum);
            reasons.put(kind, "[" + header(r, "__connect.errors.stage") + "] " + header(r, "__connect.errors.exception.message"));
        }
        List<String> notRunning = states.stream().filter(s -> !s.endsWith("RUNNING/RUNNING")).distinct().toList();
        System.out.printf("untrusted records: %d produced (%d BSON, %d text, %d JSON), %d in the DLQ; destination %s "
                        + "(%d namespaces, %d documents); %d status checks, not RUNNING: %s%n",
                poison.size(), poison.stream().filter(x -> x.topic().equals(BSON_TOPIC)).count(),
                poison.stream().filter(x -> x.topic().equals(TEXT_TOPIC)).count(),
                poison.stream().filter(x -> x.topic().equals(JSON_TOPIC)).count(), dead.size(),
                same(before, after) ? "byte-identical before and after" : "CHANGED", after.size(),
                after.values().stream().mapToInt(Map::size).sum(), states.size(), notRunning);
        for (Poison x : poison) {
            String why = reasons.getOrDefault(x.kind(), "(not in the DLQ)");
            System.out.printf("  %-26s %-5s dlq=%d  %s%n", x.kind(), form(x.topic()), counts.getOrDefault(x.kind(), 0),
                    why.length() > 220 ? why.substring(0, 220) + "..." : why);
        }

        assertThat(dead).hasSize(poison.size());
        for (Poison x : poison) {
            assertThat(counts.get(x.kind())).as(x.kind()).isEqualTo(1);
            assertThat(reasons.get(x.kind())).as(x.kind()).contains(x.expect());
        }
        assertThat(same(before, after)).as("destination byte-identical before and after").isTrue();
        assertThat(notRunning).as("connectors and tasks RUNNING throughout").isEmpty();

        // Control: the server answers an operator filter as MongoDB does, so had the sink sent one, it would show.
        var scratch = client.getDatabase("untrusted_control").getCollection("docs");
        scratch.insertMany(List.of(new org.bson.Document("_id", 1), new org.bson.Document("_id", 2)));
        long removed = scratch.deleteOne(BsonDocument.parse("{_id: {$exists: true}}")).getDeletedCount();
        System.out.printf("control: deleteOne({_id: {$exists: true}}) on a scratch collection of this server removed %d document%n",
                removed);
        assertThat(removed).isEqualTo(1);

        // Still applying: one more legitimate record in each form lands.
        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(bootstrap)) {
            SinkItSupport.send(p, BSON_TOPIC, 0, good(100), ValueFormat.BSON);
            p.send(new ProducerRecord<>(TEXT_TOPIC, 0, null, EnvelopeCodec.toBson(good(101)).toJson().getBytes(StandardCharsets.UTF_8)));
            SinkItSupport.send(p, JSON_TOPIC, 0, good(102), ValueFormat.JSON);
            p.flush();
        }
        await("the records after the poison applied", Duration.ofMinutes(1), () -> SinkItSupport.snapshot(client, ORDERS).size() == 25);
        for (String c : CONNECTORS) {
            assertThat(state(rest.statusOrEmpty(c))).as(c).isEqualTo("RUNNING/RUNNING");
            rest.deleteConnector(c);
        }
    }

    private static Map<String, String> config(String topic, String converter) {
        Map<String, String> c = SinkItSupport.sinkConfig(topic, destination.uri(), "unused", ValueFormat.BSON);
        c.remove("database"); // each record names its destination database: what this test attacks
        SinkItSupport.converters(c, converter);
        c.put("errors.tolerance", "all");
        c.put("errors.deadletterqueue.topic.name", DLQ);
        c.put("errors.deadletterqueue.topic.replication.factor", "1");
        c.put("errors.deadletterqueue.context.headers.enable", "true");
        c.put("producer.override.max.request.size", Integer.toString(SinkItSupport.LARGE_MESSAGE_BYTES));
        c.put("record.max.bytes", Integer.toString(2 * 1024 * 1024));
        return c;
    }

    private static ChangeEvent good(int id) {
        return new ChangeEvent(Op.INSERT, ORDERS, new BsonInt32(id), new BsonDocument("_id", new BsonInt32(id))
                .append("item", new BsonString("item-" + id)), new BsonTimestamp(1_700_000_000, id), 0L, null);
    }

    private static ChangeEvent insert(Namespace ns, BsonValue id, BsonDocument doc) {
        return new ChangeEvent(Op.INSERT, ns, id, doc, new BsonTimestamp(1_700_000_100, 1), 0L, null);
    }

    private static ChangeEvent delete(Namespace ns, BsonValue id) {
        return new ChangeEvent(Op.DELETE, ns, id, null, new BsonTimestamp(1_700_000_100, 2), 0L, null);
    }

    private static ProducerRecord<byte[], byte[]> bson(ChangeEvent e) {
        return new ProducerRecord<>(BSON_TOPIC, 0, SinkItSupport.keyBytes(BSON_TOPIC, e.id(), ValueFormat.BSON),
                SinkItSupport.valueBytes(BSON_TOPIC, e, ValueFormat.BSON));
    }

    private static ProducerRecord<byte[], byte[]> bytes(String topic, byte[] key, byte[] value, String... headers) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, 0, key, value);
        for (int i = 0; i < headers.length; i += 2) {
            r.headers().add(headers[i], headers[i + 1].getBytes(StandardCharsets.UTF_8));
        }
        return r;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ChangeEvent padded(int id, int chars) {
        return insert(ORDERS, new BsonInt32(id), new BsonDocument("_id", new BsonInt32(id)).append("pad", new BsonString("p".repeat(chars))));
    }

    private static List<Poison> poison() {
        BsonDocument exists = BsonDocument.parse("{$exists: true}");
        List<Poison> p = new ArrayList<>();
        // ids that would act as operators or patterns in a filter
        p.add(new Poison("operator-id-tombstone", BSON_TOPIC, bytes(BSON_TOPIC, EnvelopeCodec.toBytes(new BsonDocument("_id", exists)),
                null, EventHeaders.NAMESPACE, ORDERS.fullName()), "'$exists'"));
        p.add(new Poison("operator-id-delete", BSON_TOPIC, bson(delete(ORDERS, exists)), "'$exists'"));
        p.add(new Poison("regex-id-delete", BSON_TOPIC, bson(delete(ORDERS, new BsonRegularExpression(".*"))), "regular expression"));
        BsonDocument gt = BsonDocument.parse("{a: {$gt: ''}}");
        p.add(new Poison("operator-in-compound-id", BSON_TOPIC, bson(insert(ORDERS, gt, new BsonDocument("_id", gt))), "'$gt'"));
        // namespaces the sink never writes
        p.add(new Poison("ns-admin-system-users", BSON_TOPIC, bson(insert(new Namespace("admin", "system.users"), new BsonString("evil"),
                BsonDocument.parse("{_id: 'evil', user: 'evil', db: 'admin', roles: [{role: 'root', db: 'admin'}]}"))), "admin"));
        p.add(new Poison("ns-config", BSON_TOPIC, bson(insert(new Namespace("config", "settings"), new BsonString("balancer"),
                BsonDocument.parse("{_id: 'balancer', stopped: true}"))), "'config'"));
        p.add(new Poison("ns-local-oplog", BSON_TOPIC, bson(delete(new Namespace("local", "oplog.rs"), new BsonInt32(3))), "'local'"));
        p.add(new Poison("ns-system-views", BSON_TOPIC, bson(insert(new Namespace("untrusted", "system.views"), new BsonString("untrusted.v"),
                BsonDocument.parse("{_id: 'untrusted.v', viewOn: 'orders', pipeline: []}"))), "system collection"));
        BsonDocument forgedKey = new BsonDocument("ns", new BsonString("orders")).append("id", new BsonInt32(1));
        p.add(new Poison("ns-tideline-versions", BSON_TOPIC, bson(insert(new Namespace("untrusted", "_tideline_versions"), forgedKey,
                new BsonDocument("_id", forgedKey).append("v", new BsonTimestamp(Integer.MAX_VALUE, 1)).append("deleted", BsonBoolean.FALSE))),
                "Tideline's own"));
        p.add(new Poison("ns-header-admin", BSON_TOPIC, bytes(BSON_TOPIC, null, EnvelopeCodec.toBytes(BsonDocument.parse("{_id: 9, x: 1}")),
                EventHeaders.NAMESPACE, "admin.users"), "'admin'"));
        // too deep to decode, too large
        p.add(new Poison("deep-bson-value-10000", BSON_TOPIC, bytes(BSON_TOPIC, null, DeepValues.bsonEnvelope(11, 10_000)),
                "deeper than 104 levels"));
        p.add(new Poison("deep-bson-key-10000", BSON_TOPIC, bytes(BSON_TOPIC, DeepValues.bson(10_000), null,
                EventHeaders.NAMESPACE, ORDERS.fullName()), "deeper than 104 levels"));
        p.add(new Poison("oversized-bson-3MB", BSON_TOPIC, bson(padded(13, 3_000_000)), "over record.max.bytes"));
        p.add(new Poison("oversized-bson-17MB", BSON_TOPIC, bson(padded(14, 17_000_000)), "over record.max.bytes"));
        p.add(new Poison("dollar-top-level-field", BSON_TOPIC, bson(insert(ORDERS, new BsonInt32(15),
                BsonDocument.parse("{_id: 15, $set: {x: 1}}"))), "'$set'"));
        // the text form (StringConverter), including a foreign change event
        p.add(new Poison("deep-text-10000", TEXT_TOPIC, bytes(TEXT_TOPIC, null, utf8(DeepValues.jsonEnvelope(16, 10_000))),
                "deeper than 104 levels"));
        p.add(new Poison("official-operator-delete", TEXT_TOPIC, bytes(TEXT_TOPIC, null, utf8("{\"operationType\": \"delete\", "
                + "\"ns\": {\"db\": \"untrusted\", \"coll\": \"orders\"}, \"documentKey\": {\"_id\": {\"$ne\": null}}}")), "'$ne'"));
        p.add(new Poison("official-ns-admin", TEXT_TOPIC, bytes(TEXT_TOPIC, null, utf8("{\"operationType\": \"insert\", \"ns\": "
                + "{\"db\": \"admin\", \"coll\": \"x\"}, \"documentKey\": {\"_id\": 18}, \"fullDocument\": {\"_id\": 18}}")), "'admin'"));
        p.add(new Poison("oversized-text-3MB", TEXT_TOPIC, bytes(TEXT_TOPIC, null,
                utf8("{\"_id\": 19, \"pad\": \"" + "p".repeat(3_000_000) + "\"}")), "over record.max.bytes"));
        // the json form (JsonConverter, schemas off)
        byte[] deepMap = SinkItSupport.json(false).fromConnectData(JSON_TOPIC, null, DeepValues.mapEnvelope(20, 500));
        p.add(new Poison("deep-map-500", JSON_TOPIC, bytes(JSON_TOPIC, null, deepMap), "deeper than 104 levels"));
        p.add(new Poison("deep-json-10000", JSON_TOPIC, bytes(JSON_TOPIC, null, utf8(DeepValues.json(10_000))), "[VALUE_CONVERTER]"));
        ChangeEvent regexDelete = delete(ORDERS, new BsonRegularExpression("^1"));
        p.add(new Poison("regex-id-json", JSON_TOPIC, new ProducerRecord<>(JSON_TOPIC, 0,
                SinkItSupport.keyBytes(JSON_TOPIC, regexDelete.id(), ValueFormat.JSON),
                SinkItSupport.valueBytes(JSON_TOPIC, regexDelete, ValueFormat.JSON)), "regular expression"));
        return p;
    }

    /**
     * Every document of every collection outside admin, config and local, plus the namespaces the poison
     * aims at inside those (whose other contents a real server changes by itself): whether each exists,
     * and its documents when it does, as bytes.
     */
    private static Map<String, Map<BsonValue, byte[]>> destinationState(MongoClient client) {
        Map<String, Map<BsonValue, byte[]>> state = new TreeMap<>();
        List<Namespace> namespaces = new ArrayList<>();
        for (Namespace target : RESERVED_TARGETS) {
            byte exists;
            try {
                exists = (byte) (client.getDatabase(target.db()).listCollectionNames().into(new ArrayList<>()).contains(target.coll()) ? 1 : 0);
            } catch (com.mongodb.MongoCommandException e) {
                if (!dev.tideline.mongo.MongoErrors.isCommandNotFound(e)) {
                    throw e;
                }
                exists = 2; // mongo-java-server's admin database answers no listCollections: nothing was written there either
            }
            state.put(target.fullName() + " exists", Map.of(new BsonString("exists"), new byte[] {exists}));
            if (exists == 1) {
                namespaces.add(target);
            }
        }
        for (String db : client.listDatabaseNames()) {
            if (!List.of("admin", "config", "local").contains(db) && !db.equals("untrusted_control")) {
                MongoDatabase d = client.getDatabase(db);
                d.listCollectionNames().forEach(c -> namespaces.add(new Namespace(db, c)));
            }
        }
        for (Namespace ns : namespaces) {
            Map<BsonValue, byte[]> docs = new HashMap<>();
            for (RawBsonDocument doc : client.getDatabase(ns.db()).getCollection(ns.coll(), RawBsonDocument.class).find()) {
                docs.put(doc.get("_id"), Arrays.copyOfRange(doc.getByteBuffer().array(), doc.getByteBuffer().position(),
                        doc.getByteBuffer().limit()));
            }
            state.put(ns.fullName(), docs);
        }
        return state;
    }

    private static boolean same(Map<String, Map<BsonValue, byte[]>> a, Map<String, Map<BsonValue, byte[]>> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (var e : a.entrySet()) {
            Map<BsonValue, byte[]> other = b.get(e.getKey());
            if (!e.getValue().keySet().equals(other.keySet())
                    || e.getValue().entrySet().stream().anyMatch(d -> !Arrays.equals(d.getValue(), other.get(d.getKey())))) {
                return false;
            }
        }
        return true;
    }

    private static String state(JsonNode status) {
        String tasks = status.path("tasks").size() == 0 ? "NO_TASK" : status.path("tasks").get(0).path("state").asText();
        return status.path("connector").path("state").asText("UNKNOWN") + "/" + tasks;
    }

    private static String form(String topic) {
        return topic.equals(BSON_TOPIC) ? "bson" : topic.equals(TEXT_TOPIC) ? "text" : "json";
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
