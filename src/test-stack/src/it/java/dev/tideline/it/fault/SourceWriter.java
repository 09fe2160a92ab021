package dev.tideline.it.fault;

import com.mongodb.MongoException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.mongo.MongoErrors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.Document;
import dev.tideline.it.support.Waits;
import java.time.Duration;

/**
 * The application writing at the source while faults happen: inserts of new ids, updates and deletes
 * of live ones, each write's effect remembered, so the final state every downstream copy must reach
 * is known exactly. A write the server refuses (it may be restarting) is retried until it is done;
 * all writes are idempotent on retry (an insert that lands twice is a duplicate key, i.e. done).
 */
final class SourceWriter implements AutoCloseable {
    private final MongoCollection<Document> collection;
    private final Random random;
    private final long pauseMillis;
    /** The document each live id must end as; a deleted id is absent. */
    private final Map<Integer, Document> expected = new ConcurrentHashMap<>();
    private final List<Integer> live = new ArrayList<>();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private volatile boolean running;
    private Thread thread;
    private int nextId;
    private int step;

    SourceWriter(MongoCollection<Document> collection, long seed, long pauseMillis) {
        this.collection = collection;
        this.random = new Random(seed);
        this.pauseMillis = pauseMillis;
    }

    /** Inserts {@code n} documents at once before the connector starts: what a backfill copies. */
    void preload(int n) {
        List<Document> docs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Document d = newDocument();
            docs.add(d);
            if (docs.size() == 1000) {
                collection.insertMany(docs);
                docs.clear();
            }
        }
        if (!docs.isEmpty()) {
            collection.insertMany(docs);
        }
        writes.addAndGet(n);
    }

    void start() {
        running = true;
        thread = new Thread(() -> {
            while (running) {
                writeOne();
                if (pauseMillis > 0) {
                    try {
                        Thread.sleep(pauseMillis);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "fault-source-writer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Stops writing; returns once the last write is done. */
    void stop() {
        running = false;
        if (thread != null) {
            try {
                thread.join(120_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Writes {@code n} more changes on the caller's thread. */
    void write(int n) {
        for (int i = 0; i < n; i++) {
            writeOne();
        }
    }

    long writes() {
        return writes.get();
    }

    long retries() {
        return retries.get();
    }

    Map<Integer, Document> expected() {
        return Map.copyOf(expected);
    }

    private void writeOne() {
        double r = random.nextDouble();
        if (live.size() < 20 || r < 0.5) {
            Document d = newDocument();
            retrying(() -> {
                try {
                    collection.insertOne(d);
                } catch (MongoWriteException e) {
                    if (e.getError().getCode() != MongoErrors.DUPLICATE_KEY) {
                        throw e; // an earlier attempt of this same insert landed: done
                    }
                }
            });
        } else if (r < 0.9) {
            int id = live.get(random.nextInt(live.size()));
            int v = ++step;
            retrying(() -> collection.updateOne(Filters.eq("_id", id), Updates.set("v", v)));
            expected.get(id).put("v", v);
        } else {
            int id = live.remove(random.nextInt(live.size()));
            retrying(() -> collection.deleteOne(Filters.eq("_id", id)));
            expected.remove(id);
        }
        writes.incrementAndGet();
    }

    private Document newDocument() {
        int id = nextId++;
        Document d = new Document("_id", id).append("v", ++step).append("pad", "x".repeat(64));
        live.add(id);
        expected.put(id, d);
        return d;
    }

    private void retrying(Runnable write) {
        // a write the server refuses (it may be restarting) is tried again every 200 ms until it is done
        Waits.until(Duration.ofMinutes(3), Duration.ofMillis(200), () -> {
            try {
                write.run();
                return null;
            } catch (MongoException e) {
                retries.incrementAndGet();
                return e;
            }
        }, java.util.Objects::isNull, e -> "the test's own write kept failing for 3 minutes; last error: " + e);
    }

    @Override
    public void close() {
        stop();
    }
}
