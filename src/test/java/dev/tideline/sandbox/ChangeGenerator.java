package dev.tideline.sandbox;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * Writes a trickle of inserts, updates and deletes into a few collections, and remembers when each
 * change was written so the progress line can tell how far capture lags behind.
 */
final class ChangeGenerator {
    private final MongoDatabase database;
    private final List<String> collections;
    private final Random random = new Random();
    private final Map<String, List<ObjectId>> liveIds = new ConcurrentHashMap<>();
    private final Map<String, List<Long>> writeTimes = new ConcurrentHashMap<>();

    ChangeGenerator(MongoDatabase database, List<String> collections) {
        this.database = database;
        this.collections = List.copyOf(collections);
        for (String name : collections) {
            liveIds.put(name, new ArrayList<>());
            writeTimes.put(name, new ArrayList<>());
        }
    }

    /** One change into a random collection: mostly inserts and updates, some deletes. */
    void writeOne() {
        String name = collections.get(random.nextInt(collections.size()));
        MongoCollection<Document> collection = database.getCollection(name);
        List<ObjectId> ids = liveIds.get(name);
        int dice = random.nextInt(100);
        boolean changed;
        if (ids.isEmpty() || dice < 50) {
            ObjectId id = new ObjectId();
            collection.insertOne(sampleDocument(name, id));
            ids.add(id);
            changed = true;
        } else if (dice < 85) {
            ObjectId id = ids.get(random.nextInt(ids.size()));
            changed = collection.updateOne(Filters.eq("_id", id),
                    Updates.combine(Updates.inc("version", 1), Updates.set("touchedAt", new java.util.Date())))
                    .getModifiedCount() == 1;
        } else {
            ObjectId id = ids.remove(random.nextInt(ids.size()));
            changed = collection.deleteOne(Filters.eq("_id", id)).getDeletedCount() == 1;
        }
        if (changed) {
            List<Long> times = writeTimes.get(name);
            synchronized (times) {
                times.add(System.currentTimeMillis());
            }
        }
    }

    private Document sampleDocument(String collection, ObjectId id) {
        Document document = new Document("_id", id).append("version", 1);
        switch (collection) {
            case "orders" -> document.append("customer", "c-" + random.nextInt(100))
                    .append("total", Math.round(random.nextDouble() * 10_000) / 100.0)
                    .append("items", List.of(new Document("sku", "p-" + random.nextInt(50)).append("qty", 1 + random.nextInt(3))));
            case "customers" -> document.append("name", "Customer " + random.nextInt(1000))
                    .append("email", "c" + random.nextInt(1000) + "@example.com");
            default -> document.append("sku", "p-" + random.nextInt(50)).append("price", random.nextInt(10_000) / 100.0);
        }
        return document;
    }

    int written(String collection) {
        List<Long> times = writeTimes.get(collection);
        synchronized (times) {
            return times.size();
        }
    }

    /**
     * Seconds since the oldest change not captured yet (the {@code captured+1}-th write), 0 when
     * everything written has been captured. Assumes changes are captured in write order, which
     * holds per collection.
     */
    double lagSeconds(String collection, long captured) {
        List<Long> times = writeTimes.get(collection);
        synchronized (times) {
            if (captured >= times.size()) {
                return 0;
            }
            return (System.currentTimeMillis() - times.get((int) captured)) / 1000.0;
        }
    }
}
