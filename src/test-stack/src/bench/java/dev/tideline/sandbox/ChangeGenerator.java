package dev.tideline.sandbox;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * Writes a trickle of inserts, updates and deletes into a few collections. Each change gets a number
 * per collection, from 1, and the time it was written: inserts and updates store the number in the
 * document ({@value #CHANGE_FIELD}), deletes are remembered by {@code _id}. Whoever sees a change
 * downstream can tell which write it was, and so how far behind the writes it is.
 */
final class ChangeGenerator {
    /** The tenants the sample documents belong to. */
    static final List<String> TENANTS = List.of("acme", "globex");

    static final String CHANGE_FIELD = "change";

    private final MongoDatabase database;
    private final List<String> collections;
    private final Random random = new Random();
    private final Map<String, Written> written = new HashMap<>();

    /** One collection's bookkeeping; guarded by itself. */
    private static final class Written {
        final List<ObjectId> liveIds = new ArrayList<>();
        final List<Long> writeTimes = new ArrayList<>(); // index n-1: when change n was written
        final Map<ObjectId, Long> deletes = new HashMap<>(); // _id -> number of the change that deleted it
    }

    ChangeGenerator(MongoDatabase database, List<String> collections) {
        this.database = database;
        this.collections = List.copyOf(collections);
        collections.forEach(name -> written.put(name, new Written()));
    }

    /** Creates the collections, as an application's would exist before capture is set up. */
    void createCollections() {
        List<String> existing = database.listCollectionNames().into(new ArrayList<>());
        collections.stream().filter(c -> !existing.contains(c)).forEach(database::createCollection);
    }

    /** One change into a random collection: mostly inserts and updates, some deletes. */
    void writeOne() {
        String name = collections.get(random.nextInt(collections.size()));
        MongoCollection<Document> collection = database.getCollection(name);
        Written w = written.get(name);
        // the lock makes number and time follow the order in which the server applies the writes
        synchronized (w) {
            long n = w.writeTimes.size() + 1;
            int dice = random.nextInt(100);
            boolean changed;
            if (w.liveIds.isEmpty() || dice < 50) {
                ObjectId id = new ObjectId();
                collection.insertOne(sampleDocument(name, id).append(CHANGE_FIELD, n));
                w.liveIds.add(id);
                changed = true;
            } else if (dice < 85) {
                ObjectId id = w.liveIds.get(random.nextInt(w.liveIds.size()));
                changed = collection.updateOne(Filters.eq("_id", id), Updates.combine(Updates.inc("version", 1),
                        Updates.set("touchedAt", new java.util.Date()), Updates.set(CHANGE_FIELD, n))).getModifiedCount() == 1;
            } else {
                ObjectId id = w.liveIds.remove(random.nextInt(w.liveIds.size()));
                changed = collection.deleteOne(Filters.eq("_id", id)).getDeletedCount() == 1;
                if (changed) {
                    w.deletes.put(id, n);
                }
            }
            if (changed) {
                w.writeTimes.add(System.currentTimeMillis());
            }
        }
    }

    private Document sampleDocument(String collection, ObjectId id) {
        // the source's tenant.field (config/source-example.json): the gateway's channels are per tenant
        Document document = new Document("_id", id).append("version", 1).append("tenant", TENANTS.get(random.nextInt(TENANTS.size())));
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
        Written w = written.get(collection);
        synchronized (w) {
            return w.writeTimes.size();
        }
    }

    /** The number of the change that deleted this document, 0 if the generator did not delete it. */
    long deleteNumber(String collection, BsonValue id) {
        if (id == null || !id.isObjectId()) {
            return 0;
        }
        Written w = written.get(collection);
        synchronized (w) {
            return w.deletes.getOrDefault(id.asObjectId().getValue(), 0L);
        }
    }

    /**
     * Seconds since the oldest change after change {@code seen} was written (0 when nothing is
     * newer): how far behind the writes a reader is that has seen change {@code seen}. Changes of one
     * collection arrive in write order, so having seen change n means having seen all before it.
     */
    double lagSeconds(String collection, long seen) {
        Written w = written.get(collection);
        synchronized (w) {
            if (seen >= w.writeTimes.size()) {
                return 0;
            }
            return (System.currentTimeMillis() - w.writeTimes.get((int) seen)) / 1000.0;
        }
    }
}
