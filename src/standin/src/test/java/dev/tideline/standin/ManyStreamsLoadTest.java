package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Many collections, each read by its own change stream (a getMore waiting on each), while one writer inserts
 * round-robin: every insert is served and delivered, and the figures are printed (no timed assertion). With
 * getMores that held their event loop this took minutes at 300 streams and 6,000 inserts. Scale it with
 * {@code -Dstandin.load.streams=300 -Dstandin.load.inserts=6000}.
 */
class ManyStreamsLoadTest {

    @Test
    void everyInsertIsServedAndDeliveredWhileEveryStreamWaits() throws Exception {
        int streams = Integer.getInteger("standin.load.streams", 60);
        int inserts = Integer.getInteger("standin.load.inserts", 1200);
        AwaitingMemoryBackend backend = new AwaitingMemoryBackend();
        try (MongoFixture mongo = MongoFixture.inProcess(backend, true);
             MongoClient client = MongoClients.create(MongoClientSettings.builder()
                     .applyConnectionString(new ConnectionString(mongo.uri()))
                     .applyToConnectionPoolSettings(p -> p.maxSize(streams + 20))
                     .applyToSocketSettings(s -> s.readTimeout(60, TimeUnit.SECONDS))
                     .build())) {
            MongoDatabase db = client.getDatabase("load");
            List<MongoChangeStreamCursor<ChangeStreamDocument<Document>>> cursors = new ArrayList<>();
            for (int i = 0; i < streams; i++) {
                cursors.add(db.getCollection("c" + i).watch().batchSize(1000).maxAwaitTime(1, TimeUnit.SECONDS).cursor());
            }
            int perStream = inserts / streams;
            ExecutorService readers = Executors.newFixedThreadPool(streams);
            try {
                List<Future<Integer>> counts = new ArrayList<>();
                for (var cursor : cursors) {
                    counts.add(readers.submit(() -> {
                        int n = 0;
                        long deadline = System.currentTimeMillis() + 600_000;
                        while (n < perStream && System.currentTimeMillis() < deadline) {
                            if (cursor.tryNext() != null) {
                                n++;
                            }
                        }
                        return n;
                    }));
                }
                long examinedBefore = backend.oplogEntriesExamined();
                long started = System.nanoTime();
                for (int i = 0; i < perStream * streams; i++) {
                    db.getCollection("c" + (i % streams)).insertOne(new Document("_id", i));
                }
                long written = System.nanoTime();
                int delivered = 0;
                for (Future<Integer> count : counts) {
                    delivered += count.get(600, TimeUnit.SECONDS);
                }
                long done = System.nanoTime();
                long examined = backend.oplogEntriesExamined() - examinedBefore;
                System.out.printf("STANDIN-LOAD %d streams (one per collection), %d inserts: written in %.1f s, all delivered in %.1f s; "
                                + "%d oplog entries examined, %.0f per write%n", streams, perStream * streams,
                        (written - started) / 1e9, (done - started) / 1e9, examined, examined / (double) (perStream * streams));
                assertThat(delivered).isEqualTo(perStream * streams);
            } finally {
                readers.shutdownNow();
                cursors.forEach(MongoChangeStreamCursor::close);
            }
        }
    }
}
