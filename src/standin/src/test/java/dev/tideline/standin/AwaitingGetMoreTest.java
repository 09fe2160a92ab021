package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import de.bwaldvogel.mongo.MongoServer;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item: an awaiting change-stream getMore waits on the server without holding its connection's event loop.
 * The server here has ONE event loop for every connection, so a getMore that blocked it would hold every
 * other request until its await time (60 s) ran out; the writes below must be served meanwhile.
 */
class AwaitingGetMoreTest {
    private static final int STREAMS = 24;
    private AwaitingMemoryBackend backend;
    private MongoServer server;
    private MongoClient client;

    @BeforeEach
    void start() {
        backend = new AwaitingMemoryBackend();
        server = new MongoServer(backend);
        server.enableOplog();
        server.bind(new InetSocketAddress("127.0.0.1", 0), 1, 1);
        InetSocketAddress address = server.getLocalAddress();
        client = MongoClients.create(MongoClientSettings.builder()
                .applyConnectionString(new ConnectionString("mongodb://127.0.0.1:" + address.getPort()))
                // a write stuck behind a blocked loop fails the test long before the streams' 60 s await ends
                .applyToSocketSettings(s -> s.readTimeout(20, TimeUnit.SECONDS))
                .build());
    }

    @AfterEach
    void stop() {
        client.close();
        server.shutdownNow();
    }

    @Test
    void writesAreServedWhileManyGetMoresAwaitOnTheSameEventLoop() throws Exception {
        List<MongoCollection<Document>> collections = new ArrayList<>();
        List<MongoChangeStreamCursor<ChangeStreamDocument<Document>>> cursors = new ArrayList<>();
        for (int i = 0; i < STREAMS; i++) {
            MongoCollection<Document> c = client.getDatabase("await").getCollection("c" + i);
            collections.add(c);
            cursors.add(c.watch().maxAwaitTime(60, TimeUnit.SECONDS).cursor());
        }
        ExecutorService readers = Executors.newFixedThreadPool(STREAMS);
        try {
            List<Future<ChangeStreamDocument<Document>>> firstEvents = new ArrayList<>();
            for (var cursor : cursors) {
                firstEvents.add(readers.submit(() -> {
                    ChangeStreamDocument<Document> e = null;
                    while (e == null) {
                        e = cursor.tryNext();
                    }
                    return e;
                }));
            }
            long deadline = System.currentTimeMillis() + 20_000;
            while (backend.awaitingGetMores() < STREAMS && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertThat(backend.awaitingGetMores()).as("getMores waiting on the server at once").isEqualTo(STREAMS);

            long started = System.nanoTime();
            for (int i = 0; i < STREAMS; i++) {
                collections.get(i).insertOne(new Document("_id", i));
            }
            for (int i = 0; i < STREAMS; i++) {
                ChangeStreamDocument<Document> event = firstEvents.get(i).get(30, TimeUnit.SECONDS);
                assertThat(event.getDocumentKey().getInt32("_id").getValue()).isEqualTo(i);
            }
            System.out.printf("AWAIT %d awaiting getMores on one event loop: %d inserts written and delivered in %d ms%n",
                    STREAMS, STREAMS, (System.nanoTime() - started) / 1_000_000);
        } finally {
            readers.shutdownNow();
            cursors.forEach(MongoChangeStreamCursor::close);
        }
    }

    @Test
    void anEmptyGetMoreWaitsItsAwaitTimeAndAnswersWithAnEmptyBatch() {
        MongoCollection<Document> c = client.getDatabase("await").getCollection("quiet");
        try (var cursor = c.watch().maxAwaitTime(400, TimeUnit.MILLISECONDS).cursor()) {
            cursor.tryNext(); // the first batch comes with the aggregate
            long started = System.nanoTime();
            assertThat(cursor.tryNext()).isNull();
            long waitedMillis = (System.nanoTime() - started) / 1_000_000;
            assertThat(waitedMillis).as("the server waited for data before answering empty").isGreaterThanOrEqualTo(380);
            assertThat(backend.awaitingGetMores()).isZero();
        }
    }
}
