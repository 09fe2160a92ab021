package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import dev.tideline.event.Namespace;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/**
 * Under a steady trickle of changes the reader hands over what each round trip returned, instead of
 * asking again until a whole batch is full: a server that waits on an empty getMore (MongoDB does,
 * for up to maxAwaitTimeMS) never answers empty during a trickle, so a full batch of 1,000 at 500
 * changes/s would hold the first change for two seconds (the end-to-end latency of the benchmark).
 */
class StreamReaderHandOverTest {

    /** The stand-in, made to wait on a change-stream getMore until something arrives, as MongoDB does. */
    private static final class WaitingBackend extends MemoryBackend {
        @Override
        protected Document handleGetMore(String databaseName, String collectionName, Document query) {
            long deadline = System.nanoTime() + 1_000_000_000L;
            while (true) {
                Document reply = super.handleGetMore(databaseName, collectionName, query);
                Object cursor = reply.get("cursor");
                boolean empty = cursor instanceof Document c && c.get("nextBatch") instanceof List<?> b && b.isEmpty();
                if (!empty || System.nanoTime() > deadline) {
                    return reply;
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return reply;
                }
            }
        }
    }

    @Test
    void aTrickleIsHandedOverRoundTripByRoundTrip() throws Exception {
        MongoServer server = new MongoServer(new WaitingBackend());
        server.enableOplog();
        InetSocketAddress address = server.bind();
        AtomicBoolean writing = new AtomicBoolean(true);
        try (MongoClient client = MongoClients.create("mongodb://" + address.getHostString() + ":" + address.getPort())) {
            MongoCollection<org.bson.Document> docs = client.getDatabase("t").getCollection("trickle");
            docs.insertOne(new org.bson.Document("_id", 0));
            BsonTimestamp before = new BsonTimestamp((int) (System.currentTimeMillis() / 1000) - 1, 0);
            Thread writer = new Thread(() -> {
                for (int i = 1; i <= 3_000 && writing.get(); i++) {
                    docs.insertOne(new org.bson.Document("_id", i));
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            writer.start();
            StreamReader reader = new StreamReader(client.getDatabase("t").getCollection("trickle", RawBsonDocument.class),
                    new Namespace("t", "trickle"), null, SourceOffset.streamFrom(before), 1_000, 1_000, 0);
            try {
                List<Captured> first = reader.next();
                List<Captured> second = reader.next();
                assertThat(first).isNotEmpty();
                assertThat(second).isNotEmpty();
                // a whole batch would take 2 s of trickle; one round trip brings what arrived since the last one
                assertThat(first.size()).isLessThan(1_000);
                assertThat(second.size()).isLessThan(1_000);
            } finally {
                reader.close();
                writing.set(false);
                writer.join();
            }
        } finally {
            server.shutdownNow();
        }
    }
}
