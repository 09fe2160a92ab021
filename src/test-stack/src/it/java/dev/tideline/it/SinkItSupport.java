package dev.tideline.it;

import com.mongodb.client.MongoClient;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.json.JsonConverter;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import dev.tideline.it.support.Waits;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.nio.file.Files;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/** What the sink ITs share: producing change records in both forms, connector configs, destination snapshots. */
final class SinkItSupport {
    static final String SINK_CLASS = "dev.tideline.sink.TidelineSinkConnector";
    static final int LARGE_MESSAGE_BYTES = 25 * 1024 * 1024;

    private SinkItSupport() {
    }

    static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, LARGE_MESSAGE_BYTES,
                ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A topic whose records may be as large as {@link #LARGE_MESSAGE_BYTES} (the broker default is 1 MB). */
    static void createLargeMessageTopic(String bootstrap, String name, int partitions) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(name, Optional.of(partitions), Optional.empty())
                    .configs(Map.of("max.message.bytes", Integer.toString(LARGE_MESSAGE_BYTES)))))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create topic " + name, e);
        }
    }

    /** The bytes a source task with the given converter would have written: JsonConverter (schemas off) or raw BSON. */
    static byte[] keyBytes(String topic, BsonValue id, ValueFormat format) {
        Object key = EnvelopeCodec.toKey(id, format);
        return format == ValueFormat.BSON ? (byte[]) key : json(true).fromConnectData(topic, null, key);
    }

    static byte[] valueBytes(String topic, ChangeEvent e, ValueFormat format) {
        Object value = EnvelopeCodec.toValue(e, format);
        return format == ValueFormat.BSON ? (byte[]) value : json(false).fromConnectData(topic, null, value);
    }

    static JsonConverter json(boolean isKey) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "false"), isKey);
        return c;
    }

    static void send(KafkaProducer<byte[], byte[]> producer, String topic, Integer partition, ChangeEvent e, ValueFormat format) {
        producer.send(new ProducerRecord<>(topic, partition, keyBytes(topic, e.id(), format), valueBytes(topic, e, format)));
    }

    /** The sink's config for a topic in the given form, with converters matching it. */
    static Map<String, String> sinkConfig(String topics, String uri, String database, ValueFormat format) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", SINK_CLASS);
        c.put("tasks.max", "1");
        c.put("topics", topics);
        c.put("mongodb.uri", uri);
        c.put("database", database);
        converters(c, format == ValueFormat.BSON
                ? "org.apache.kafka.connect.converters.ByteArrayConverter" : "org.apache.kafka.connect.json.JsonConverter");
        c.put("retry.backoff.initial.ms", "200");
        c.put("retry.backoff.max.ms", "2000");
        return c;
    }

    /** The same converter for keys and values, schemas off (JsonConverter). */
    static void converters(Map<String, String> c, String converter) {
        c.put("key.converter", converter);
        c.put("value.converter", converter);
        c.put("key.converter.schemas.enable", "false");
        c.put("value.converter.schemas.enable", "false");
    }

    /** Every document of a collection, by _id, as the bytes the server returns. */
    static Map<BsonValue, RawBsonDocument> snapshot(MongoClient client, Namespace ns) {
        Map<BsonValue, RawBsonDocument> docs = new HashMap<>();
        for (RawBsonDocument d : client.getDatabase(ns.db()).getCollection(ns.coll(), RawBsonDocument.class).find()) {
            docs.put(d.get("_id"), d);
        }
        return docs;
    }

    static void await(String what, Duration timeout, BooleanSupplier condition) {
        Waits.until(timeout, Duration.ofMillis(250), condition::getAsBoolean, Boolean::booleanValue,
                last -> "timed out after " + timeout + " waiting for " + what + " (the condition last held: " + last + ")");
    }

    /**
     * Waits until the consumer group {@code group} (a sink connector's: {@code connect-<name>}) has committed,
     * on every partition of {@code topics}, past the last record the topic holds now: the sink has taken,
     * applied or reported everything written so far (Connect commits only what put() and preCommit let
     * through). The target is the last record's offset + 1, not the end offset, which a transaction marker
     * may pass.
     */
    static Map<TopicPartition, Long> awaitCommittedThroughEnd(String bootstrap, String group, List<String> topics, Duration timeout) {
        Map<TopicPartition, Long> target = new HashMap<>();
        for (String topic : topics) {
            for (ConsumerRecord<byte[], byte[]> r : TopicReader.readToEnd(bootstrap, topic, Duration.ofSeconds(30))) {
                target.merge(new TopicPartition(r.topic(), r.partition()), r.offset() + 1, Math::max);
            }
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            return Waits.until(timeout, Duration.ofMillis(250), () -> {
                Map<TopicPartition, Long> committed = new HashMap<>();
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)
                        .forEach((tp, o) -> {
                            if (o != null) {
                                committed.put(tp, o.offset());
                            }
                        });
                return committed;
            }, committed -> target.entrySet().stream().allMatch(e -> committed.getOrDefault(e.getKey(), -1L) >= e.getValue()),
                    committed -> "group " + group + " did not commit through the last records of " + topics + " within " + timeout
                            + "; last records end at " + target + ", last committed " + committed);
        }
    }

    /** How many lines of worker-0's log contain every one of {@code parts} (the log is appended to across runs: compare counts). */
    static long workerLogLines(TestStack stack, String... parts) {
        try (var lines = Files.lines(stack.workDir().resolve("worker-0").resolve("worker-0.log"))) {
            return lines.filter(l -> java.util.Arrays.stream(parts).allMatch(l::contains)).count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * A mixed, deterministic workload on one source collection: inserts, updates, replaces and
     * deletes over {@code ids} documents, cluster times strictly increasing, and the state the
     * destination must end in.
     */
    record Workload(List<ChangeEvent> changes, Map<BsonValue, BsonDocument> expected) {
        static Workload generate(Namespace ns, int changes, int ids, long seed) {
            Random random = new Random(seed);
            Map<BsonValue, BsonDocument> live = new LinkedHashMap<>();
            List<ChangeEvent> out = new ArrayList<>(changes);
            for (int i = 0; i < changes; i++) {
                BsonValue id = new BsonInt32(random.nextInt(ids));
                BsonTimestamp ct = new BsonTimestamp(1_700_000_000 + i / 1000, i % 1000 + 1);
                Op op;
                if (!live.containsKey(id)) {
                    op = Op.INSERT;
                } else {
                    double r = random.nextDouble();
                    op = r < 0.5 ? Op.UPDATE : r < 0.8 ? Op.REPLACE : Op.DELETE;
                }
                BsonDocument doc = null;
                if (op != Op.DELETE) {
                    doc = new BsonDocument("_id", id).append("step", new BsonInt32(i)).append("big", new BsonInt64(1L << 40 | i))
                            .append("op", new BsonString(op.wireName())).append("at", new BsonDateTime(1_700_000_000_000L + i))
                            .append("nested", new BsonDocument("pad", new BsonString("x".repeat(random.nextInt(200)))));
                    live.put(id, doc);
                } else {
                    live.remove(id);
                }
                out.add(new ChangeEvent(op, ns, id, doc, ct, 1_700_000_000_000L + i, null));
            }
            return new Workload(out, live);
        }

        long count(Op op) {
            return changes.stream().filter(c -> c.op() == op).count();
        }

        String summary() {
            return changes.size() + " changes (" + count(Op.INSERT) + " inserts, " + count(Op.UPDATE) + " updates, "
                    + count(Op.REPLACE) + " replaces, " + count(Op.DELETE) + " deletes) -> " + expected.size() + " documents";
        }
    }

    /** Differences between the destination and the expected documents, compared as BSON bytes; empty when equal. */
    static List<String> byteDifferences(Map<BsonValue, BsonDocument> expected, Map<BsonValue, RawBsonDocument> actual) {
        List<String> diffs = new ArrayList<>();
        for (Map.Entry<BsonValue, BsonDocument> e : expected.entrySet()) {
            RawBsonDocument got = actual.get(e.getKey());
            if (got == null) {
                diffs.add("missing _id " + e.getKey());
            } else if (!java.util.Arrays.equals(EnvelopeCodec.toBytes(e.getValue()), EnvelopeCodec.toBytes(got))) {
                diffs.add("different bytes for _id " + e.getKey() + ": " + got.toJson() + " vs " + e.getValue().toJson());
            }
        }
        actual.keySet().stream().filter(id -> !expected.containsKey(id)).forEach(id -> diffs.add("unexpected _id " + id));
        return diffs;
    }
}
