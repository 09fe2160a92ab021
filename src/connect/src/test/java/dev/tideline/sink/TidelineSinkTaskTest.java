package dev.tideline.sink;

import static dev.tideline.sink.TestRecords.SHOP_ORDERS;
import static dev.tideline.sink.TestRecords.doc;
import static dev.tideline.sink.TestRecords.envelopeRecord;
import static dev.tideline.sink.TestRecords.event;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.errors.RetriableException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.junit.jupiter.api.Test;

/** The task's lifecycle and its answer to a destination that is down: retriable, with growing backoff, batch kept. */
class TidelineSinkTaskTest {
    private final List<Long> timeouts = new ArrayList<>();

    private final SinkTaskContext context = new SinkTaskContext() {
        @Override public Map<String, String> configs() { return Map.of(); }
        @Override public void offset(Map<TopicPartition, Long> offsets) { }
        @Override public void offset(TopicPartition tp, long offset) { }
        @Override public void timeout(long timeoutMs) { timeouts.add(timeoutMs); }
        @Override public Set<TopicPartition> assignment() { return Set.of(); }
        @Override public void pause(TopicPartition... partitions) { }
        @Override public void resume(TopicPartition... partitions) { }
        @Override public void requestCommit() { }
        @Override public ErrantRecordReporter errantRecordReporter() { return null; }
    };

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void anUnreachableDestinationIsRetriedWithBackoffAndTheSameBatchLandsOnceItIsBack() throws Exception {
        int port = freePort();
        TidelineSinkTask task = new TidelineSinkTask();
        task.initialize(context);
        task.start(Map.of("mongodb.uri", "mongodb://127.0.0.1:" + port, "database", "dest",
                "mongodb.connect.timeout.ms", "300", "retry.backoff.initial.ms", "100", "retry.backoff.max.ms", "250"));
        List<SinkRecord> batch = List.of(envelopeRecord("t", 0, event(Op.INSERT, SHOP_ORDERS, 1, doc(1, "x"), 10), ValueFormat.BSON));
        try {
            for (int attempt = 0; attempt < 3; attempt++) {
                assertThatThrownBy(() -> task.put(batch)).isInstanceOf(RetriableException.class)
                        .hasMessageContaining("re-delivered");
            }
            assertThat(timeouts).containsExactly(100L, 200L, 250L);

            MongoServer server = new MongoServer(new AwaitingMemoryBackend());
            server.bind("127.0.0.1", port);
            try (MongoClient client = MongoClients.create("mongodb://127.0.0.1:" + port)) {
                // Connect re-delivers the same records after each retriable failure; the driver notices
                // the server within its heartbeat interval (at least 500 ms), so the first re-delivery
                // may still find it unknown.
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (true) {
                    try {
                        task.put(batch);
                        break;
                    } catch (RetriableException stillDown) {
                        if (System.nanoTime() > deadline) {
                            throw stillDown;
                        }
                    }
                }
                assertThat(client.getDatabase("dest").getCollection("orders", BsonDocument.class)
                        .find(new BsonDocument("_id", new BsonInt32(1))).first()).isEqualTo(doc(1, "x"));
            } finally {
                server.shutdownNow();
            }
            System.out.println("retry: 3 retriable failures with backoffs " + timeouts + ", then the batch landed");
        } finally {
            task.stop();
        }
    }

    @Test
    void stopAfterAFailedStartIsSafe() {
        TidelineSinkTask task = new TidelineSinkTask();
        task.initialize(context);
        assertThatThrownBy(() -> task.start(Map.of("mongodb.uri", "mongodb://h", "write.mode", "merge")))
                .hasMessageContaining("write.mode");
        task.stop();
    }

    @Test
    void versionComesFromTheBuild() {
        assertThat(new TidelineSinkTask().version()).isEqualTo(new TidelineSinkConnector().version()).doesNotContain("${");
    }

    /**
     * Two documents swap a unique value at the source (A: x to y, then B: z to x) and B's change, on
     * another partition, reaches the destination first: held, not reported, and applied once A's lands.
     */
    @Test
    void aDuplicateKeyOnAUniqueIndexIsRetriedUntilTheSwapCompletesAndOffsetsWaitForIt() {
        MongoServer server = new MongoServer(new AwaitingMemoryBackend());
        server.bind("127.0.0.1", 0);
        String uri = "mongodb://127.0.0.1:" + server.getLocalAddress().getPort();
        List<Object> reported = new ArrayList<>();
        SinkTaskContext withReporter = new SinkTaskContext() {
            @Override public Map<String, String> configs() { return Map.of(); }
            @Override public void offset(Map<TopicPartition, Long> offsets) { }
            @Override public void offset(TopicPartition tp, long offset) { }
            @Override public void timeout(long timeoutMs) { timeouts.add(timeoutMs); }
            @Override public Set<TopicPartition> assignment() { return Set.of(); }
            @Override public void pause(TopicPartition... partitions) { }
            @Override public void resume(TopicPartition... partitions) { }
            @Override public void requestCommit() { }
            @Override public ErrantRecordReporter errantRecordReporter() {
                return (record, error) -> {
                    reported.add(error.getMessage());
                    return java.util.concurrent.CompletableFuture.completedFuture(null);
                };
            }
        };
        try (MongoClient client = MongoClients.create(uri)) {
            var people = client.getDatabase("dest").getCollection("people");
            people.createIndex(new BsonDocument("email", new BsonInt32(1)), new com.mongodb.client.model.IndexOptions().unique(true));
            TidelineSinkTask task = new TidelineSinkTask();
            task.initialize(withReporter);
            task.start(Map.of("mongodb.uri", uri, "database", "dest", "errors.tolerance", "all",
                    "retry.backoff.initial.ms", "50", "duplicate.key.retry.ms", "60000"));
            try {
                task.put(List.of(person(0, 0, "a", "x", 10), person(1, 0, "b", "z", 10)));
                SinkRecord bTakesX = person(1, 1, "b", "x", 12);
                task.put(List.of(bTakesX)); // A still holds x: refused, held
                assertThat(reported).isEmpty();
                Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed = task.preCommit(Map.of(
                        new TopicPartition("people", 1), new org.apache.kafka.clients.consumer.OffsetAndMetadata(2)));
                assertThat(committed.get(new TopicPartition("people", 1)).offset()).as("not past the held record").isEqualTo(1);
                assertThat(timeouts).contains(50L);

                task.put(List.of(person(0, 1, "a", "y", 11))); // A frees x; B is retried ahead of it in this batch
                task.put(List.of()); // and again on its own if the unordered bulk write applied it first
                assertThat(reported).isEmpty();
                assertThat(people.find(new BsonDocument("_id", new org.bson.BsonString("b"))).first().getString("email"))
                        .isEqualTo("x");
                assertThat(people.find(new BsonDocument("_id", new org.bson.BsonString("a"))).first().getString("email"))
                        .isEqualTo("y");
                assertThat(task.preCommit(Map.of(new TopicPartition("people", 1),
                        new org.apache.kafka.clients.consumer.OffsetAndMetadata(2))).get(new TopicPartition("people", 1)).offset())
                        .isEqualTo(2);
            } finally {
                task.stop();
            }
        } finally {
            server.shutdownNow();
        }
    }

    @Test
    void aDuplicateKeyThatNeverClearsIsReportedOnceTheRetryTimeIsOver() throws Exception {
        MongoServer server = new MongoServer(new AwaitingMemoryBackend());
        server.bind("127.0.0.1", 0);
        String uri = "mongodb://127.0.0.1:" + server.getLocalAddress().getPort();
        try (MongoClient client = MongoClients.create(uri)) {
            client.getDatabase("dest").getCollection("people")
                    .createIndex(new BsonDocument("email", new BsonInt32(1)), new com.mongodb.client.model.IndexOptions().unique(true));
            TidelineSinkTask task = new TidelineSinkTask();
            task.initialize(context);
            task.start(Map.of("mongodb.uri", uri, "database", "dest", "retry.backoff.initial.ms", "50", "duplicate.key.retry.ms", "300"));
            try {
                task.put(List.of(person(0, 0, "a", "x", 10)));
                task.put(List.of(person(1, 0, "b", "x", 11))); // held, errors.tolerance=none does not stop the task yet
                Thread.sleep(350);
                assertThatThrownBy(() -> task.put(List.of())).isInstanceOf(org.apache.kafka.connect.errors.ConnectException.class)
                        .hasMessageContaining("E11000").hasMessageContaining("still refused after 1 retries");
            } finally {
                task.stop();
            }
        } finally {
            server.shutdownNow();
        }
    }

    private static SinkRecord person(int partition, long offset, String id, String email, int clusterSeconds) {
        var e = new dev.tideline.event.ChangeEvent(Op.UPDATE, new dev.tideline.event.Namespace("src", "people"),
                new org.bson.BsonString(id), new BsonDocument("_id", new org.bson.BsonString(id))
                .append("email", new org.bson.BsonString(email)), new org.bson.BsonTimestamp(clusterSeconds, 1), 0, null);
        return new SinkRecord("people", partition, null, dev.tideline.event.EnvelopeCodec.toKey(e.id(), ValueFormat.BSON), null,
                dev.tideline.event.EnvelopeCodec.toValue(e, ValueFormat.BSON), offset);
    }
}
