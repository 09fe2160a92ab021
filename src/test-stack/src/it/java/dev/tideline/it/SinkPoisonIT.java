package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static dev.tideline.it.SinkItSupport.keyBytes;
import static dev.tideline.it.SinkItSupport.sinkConfig;
import static dev.tideline.it.SinkItSupport.snapshot;
import static dev.tideline.it.SinkItSupport.valueBytes;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.support.ClassMongo;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import dev.tideline.it.support.Waits;

/**
 * Records the sink cannot apply: with errors.tolerance=all they land in the DLQ with their reason
 * while every other record is applied; with the default tolerance the task fails naming the record.
 */
class SinkPoisonIT {
    private static final Namespace SOURCE = new Namespace("shop", "orders");
    private static final TestStack stack = TestStack.shared();
    @RegisterExtension
    static final ClassMongo destination = new ClassMongo();

    private static ChangeEvent insert(int id, String name, int t) {
        return new ChangeEvent(Op.INSERT, SOURCE, new BsonInt32(id),
                new BsonDocument("_id", new BsonInt32(id)).append("name", new BsonString(name)), new BsonTimestamp(t, 1), 0L, null);
    }

    private static ProducerRecord<byte[], byte[]> json(String topic, ChangeEvent e) {
        return new ProducerRecord<>(topic, 0, keyBytes(topic, e.id(), ValueFormat.JSON), valueBytes(topic, e, ValueFormat.JSON));
    }

    private static ProducerRecord<byte[], byte[]> raw(String topic, String value) {
        return new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8));
    }

    private static void uniqueName(Namespace dest) {
        destination.client().getDatabase(dest.db()).getCollection(dest.coll())
                .createIndex(Indexes.ascending("name"), new IndexOptions().unique(true));
    }

    @Test
    void poisonRecordsGoToTheDeadLetterQueueWithTheirReasonAndTheRestIsApplied() throws Exception {
        String topic = "sink-it-poison";
        String dlq = "sink-it-poison-dlq";
        String connector = "sink-poison";
        Namespace dest = new Namespace("poison_dest", "orders");
        SinkItSupport.createLargeMessageTopic(stack.bootstrapServers(), topic, 1);
        SinkItSupport.createLargeMessageTopic(stack.bootstrapServers(), dlq, 1);
        uniqueName(dest);

        BsonDocument huge = new BsonDocument("_id", new BsonInt32(3)).append("name", new BsonString("huge"))
                .append("blob", new BsonString("x".repeat(16_900_000)));
        ChangeEvent unknownOp = insert(8, "unknown-op", 105);
        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(stack.bootstrapServers())) {
            p.send(json(topic, insert(1, "taken", 100)));                        // 0 applied
            p.send(json(topic, insert(2, "taken", 101)));                        // 1 duplicate on the unique index
            p.send(raw(topic, "42"));                                            // 2 valid JSON, not a document
            p.send(raw(topic, "{\"v\": 1, \"op\": \"insert\", oops"));           // 3 malformed JSON (the converter refuses it)
            p.send(json(topic, new ChangeEvent(Op.INSERT, SOURCE, new BsonInt32(3), huge, new BsonTimestamp(104, 1), 0L, null))); // 4 over 16 MiB
            p.send(new ProducerRecord<>(topic, 0, null, new String(valueBytes(topic, unknownOp, ValueFormat.JSON), StandardCharsets.UTF_8)
                    .replace("\"insert\"", "\"merge\"").getBytes(StandardCharsets.UTF_8)));   // 5 unknown op
            for (int i = 4; i <= 7; i++) {
                p.send(json(topic, insert(i, "fine-" + i, 200 + i)));           // 6..9 applied
            }
            p.flush();
        }

        Map<String, String> config = sinkConfig(topic, destination.uri(), dest.db(), ValueFormat.JSON);
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", dlq);
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        config.put("producer.override.max.request.size", Integer.toString(SinkItSupport.LARGE_MESSAGE_BYTES));
        config.put("duplicate.key.retry.ms", "2000"); // retried that long before it goes to the DLQ
        stack.rest().putConnector(connector, config);
        stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));

        List<ConsumerRecord<byte[], byte[]>> dead = TopicReader.readUntil(stack.bootstrapServers(), dlq, 5, Duration.ofSeconds(90));
        await("the 5 good records applied", Duration.ofSeconds(60), () -> snapshot(destination.client(), dest).size() == 5);

        Map<Long, String> reasons = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            reasons.put(Long.parseLong(header(r, "__connect.errors.offset")),
                    header(r, "__connect.errors.exception.message") + " [stage " + header(r, "__connect.errors.stage") + "]");
        }
        System.out.printf("poison: 10 records produced, %d applied, %d in the DLQ%n", snapshot(destination.client(), dest).size(), dead.size());
        reasons.forEach((offset, why) -> System.out.printf("  DLQ offset %d: %s%n", offset, why.length() > 300 ? why.substring(0, 300) + "..." : why));

        assertThat(dead).hasSize(5);
        assertThat(reasons.keySet()).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(reasons.get(1L)).contains("topic " + topic + ", partition 0, offset 1").contains("11000");
        assertThat(reasons.get(2L)).contains("offset 2").contains("must be a document");
        assertThat(reasons.get(3L)).contains("VALUE_CONVERTER"); // refused by JsonConverter before reaching the task
        assertThat(reasons.get(4L)).contains("offset 4").contains("10334");
        assertThat(reasons.get(5L)).contains("offset 5").contains("unknown op 'merge'");
        assertThat(snapshot(destination.client(), dest).keySet().stream().map(v -> v.asInt32().getValue()).collect(Collectors.toSet()))
                .containsExactlyInAnyOrder(1, 4, 5, 6, 7);
        stack.rest().deleteConnector(connector);
    }

    @Test
    void withDefaultToleranceTheTaskFailsNamingTheRecordAfterApplyingTheRestOfTheBatch() throws Exception {
        String topic = "sink-it-fail";
        String connector = "sink-fail";
        Namespace dest = new Namespace("fail_dest", "orders");
        stack.createTopic(topic, 1);
        uniqueName(dest);
        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(stack.bootstrapServers())) {
            p.send(json(topic, insert(1, "taken", 100)));
            p.send(json(topic, insert(2, "taken", 101))); // offset 1: duplicate key
            p.send(json(topic, insert(3, "ok", 102)));
            p.flush();
        }

        Map<String, String> config = sinkConfig(topic, destination.uri(), dest.db(), ValueFormat.JSON);
        config.put("duplicate.key.retry.ms", "1000"); // retried that long before it stops the task
        stack.rest().putConnector(connector, config);
        JsonNode[] failed = new JsonNode[1];
        await("the task FAILED", Duration.ofSeconds(90), () -> {
            JsonNode status = stack.rest().statusOrEmpty(connector);
            for (JsonNode task : status.path("tasks")) {
                if ("FAILED".equals(task.path("state").asText())) {
                    failed[0] = task;
                    return true;
                }
            }
            return false;
        });
        String trace = failed[0].path("trace").asText();
        System.out.printf("default tolerance: 3 records, %d applied, task FAILED with: %s%n",
                snapshot(destination.client(), dest).size(), trace.lines().filter(l -> l.contains("offset")).findFirst().orElse(trace));

        assertThat(trace).contains("topic " + topic + ", partition 0, offset 1").contains("code 11000").contains("still refused after");
        assertThat(snapshot(destination.client(), dest).keySet()).containsExactlyInAnyOrder(new BsonInt32(1), new BsonInt32(3));
        stack.rest().deleteConnector(connector);
    }

    /**
     * Two documents swap a unique value (A: x to y, then B: z to x); B's change travels on another partition
     * and arrives first. The destination refuses it (11000) until A's change lands: it is held and retried,
     * not sent to the DLQ, and lands as soon as A's does. One task reads both partitions.
     */
    @Test
    void aDuplicateKeyFromASwapBetweenPartitionsIsRetriedUntilTheOtherChangeLands() throws Exception {
        String topic = "sink-it-swap";
        String dlq = "sink-it-swap-dlq";
        String connector = "sink-swap";
        Namespace dest = new Namespace("swap_dest", "people");
        stack.createTopic(topic, 2);
        destination.client().getDatabase(dest.db()).getCollection(dest.coll())
                .createIndex(Indexes.ascending("email"), new IndexOptions().unique(true));
        Map<String, String> config = sinkConfig(topic, destination.uri(), dest.db(), ValueFormat.JSON);
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", dlq);
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        config.put("retry.backoff.initial.ms", "200");
        stack.rest().putConnector(connector, config);
        stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(stack.bootstrapServers())) {
            p.send(person(topic, 0, "a", "x", 100));
            p.send(person(topic, 1, "b", "z", 100));
            p.flush();
            await("A and B at the destination", Duration.ofSeconds(60), () -> snapshot(destination.client(), dest).size() == 2);

            String[] heldLine = {"[task-thread-" + connector + "-0]", "refused by a unique index (duplicate key) are held and retried"};
            long heldBefore = SinkItSupport.workerLogLines(stack, heldLine);
            p.send(person(topic, 1, "b", "x", 102)); // B takes x while A still holds it here
            p.flush();
            long sent = System.nanoTime();
            Waits.until("the sink's report that it holds B's write refused by the unique index (worker log)", Duration.ofSeconds(60),
                    Duration.ofMillis(250), () -> SinkItSupport.workerLogLines(stack, heldLine), n -> n > heldBefore);
            long heldAfter = Duration.ofNanos(System.nanoTime() - sent).toMillis();
            assertThat(email(dest, "b")).as("refused while A holds x").isEqualTo("z");
            p.send(person(topic, 0, "a", "y", 101)); // A frees x
            p.flush();
            long freed = Duration.ofNanos(System.nanoTime() - sent).toMillis();
            await("B holds x", Duration.ofSeconds(60), () -> "x".equals(email(dest, "b")));
            System.out.printf("unique swap between partitions: B's write refused (11000) and held (reported after %d ms), applied %d ms "
                    + "after it was sent (A's change sent %d ms after it); A=%s B=%s%n", heldAfter,
                    Duration.ofNanos(System.nanoTime() - sent).toMillis(), freed, email(dest, "a"), email(dest, "b"));
        }
        assertThat(email(dest, "a")).isEqualTo("y");
        assertThat(TopicReader.readAll(stack.bootstrapServers(), dlq, Duration.ofSeconds(3))).as("nothing in the DLQ").isEmpty();
        stack.rest().deleteConnector(connector);
    }

    private static ProducerRecord<byte[], byte[]> person(String topic, int partition, String id, String email, int t) {
        ChangeEvent e = new ChangeEvent(Op.UPDATE, new Namespace("src", "people"), new BsonString(id),
                new BsonDocument("_id", new BsonString(id)).append("email", new BsonString(email)), new BsonTimestamp(t, 1), 0L, null);
        return new ProducerRecord<>(topic, partition, keyBytes(topic, e.id(), ValueFormat.JSON), valueBytes(topic, e, ValueFormat.JSON));
    }

    private static String email(Namespace dest, String id) {
        var doc = destination.client().getDatabase(dest.db()).getCollection(dest.coll())
                .find(new org.bson.Document("_id", id)).first();
        return doc == null ? null : doc.getString("email");
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
