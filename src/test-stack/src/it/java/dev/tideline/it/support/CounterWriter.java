package dev.tideline.it.support;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.BsonDocument;
import org.bson.BsonInt32;

/**
 * An application at the source for repair tests: increments a counter {@code n} on ids below
 * {@code hotIds}, inserts new ids from {@code newIds} on and deletes some of them; ids in between are
 * never written (a test alters them at the destination). As fast as the server answers, with a pause
 * of {@code pauseMs} between writes.
 */
public final class CounterWriter implements AutoCloseable {
    private final MongoCollection<BsonDocument> coll;
    private final int hotIds;
    private final int newIds;
    private final long pauseMs;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicLong writes = new AtomicLong();
    private Thread thread;

    public CounterWriter(MongoCollection<BsonDocument> coll, int hotIds, int newIds, long pauseMs) {
        this.coll = coll;
        this.hotIds = hotIds;
        this.newIds = newIds;
        this.pauseMs = pauseMs;
    }

    public void start() {
        running.set(true);
        thread = new Thread(this::run, "counter-writer");
        thread.setDaemon(true);
        thread.start();
    }

    public long writes() {
        return writes.get();
    }

    private void run() {
        Random random = new Random(23);
        int next = newIds;
        while (running.get()) {
            double r = random.nextDouble();
            try {
                if (r < 0.8) {
                    coll.updateOne(Filters.eq("_id", random.nextInt(hotIds)), Updates.inc("n", 1));
                } else if (r < 0.95 || next == newIds) {
                    coll.insertOne(new BsonDocument("_id", new BsonInt32(next++)).append("n", new BsonInt32(0)));
                } else {
                    coll.deleteOne(Filters.eq("_id", newIds + random.nextInt(next - newIds)));
                }
                writes.incrementAndGet();
                if (pauseMs > 0) {
                    Thread.sleep(pauseMs);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (running.get()) {
                    throw e;
                }
            }
        }
    }

    public void stop() throws InterruptedException {
        running.set(false);
        if (thread != null) {
            thread.join(10_000);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
