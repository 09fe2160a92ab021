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
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
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

            MongoServer server = new MongoServer(new MemoryBackend());
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
}
