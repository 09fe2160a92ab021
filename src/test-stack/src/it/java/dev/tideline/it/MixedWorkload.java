package dev.tideline.it;

import com.mongodb.bulk.BulkWriteResult;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.DeleteOneModel;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.InsertOneModel;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.UuidRepresentation;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;

/**
 * A deterministic mix of inserts, updates, replaces and deletes over three collections with three
 * kinds of {@code _id} (ObjectId, string, compound document) and documents of many BSON types. Some
 * deleted ids are inserted again, so a late delete meeting a re-insert happens too.
 *
 * <p>Written in bulks whose changes touch distinct documents (a second change of a document pending
 * in a bulk sends the bulk first, and the documents to change are drawn among those not pending), so
 * each document's changes keep their order while the bulk itself can be grouped by kind: a few commands per bulk instead of one per run of equal kinds, which on the
 * stand-in is the difference between one round trip (and one change-stream wake-up) per change or
 * per bulk.
 */
final class MixedWorkload {
    static final List<String> COLLECTIONS = List.of("orders", "customers", "products");
    private static final int BULK = 500;

    private final MongoDatabase db;
    private final Random random;
    private final Map<String, List<BsonValue>> live = new HashMap<>();
    private final Map<String, List<BsonValue>> deleted = new HashMap<>();
    private final Map<String, Map<BsonValue, WriteModel<BsonDocument>>> pending = new HashMap<>();
    private final Map<String, Counts> issuedPerCollection = new HashMap<>();
    private int nextId;
    private Counts applied = new Counts(0, 0, 0, 0);

    /** What was written (and acknowledged by the server). */
    record Counts(long inserts, long updates, long replaces, long deletes) {
        long total() {
            return inserts + updates + replaces + deletes;
        }

        Counts plus(Counts o) {
            return new Counts(inserts + o.inserts, updates + o.updates, replaces + o.replaces, deletes + o.deletes);
        }

        @Override
        public String toString() {
            return total() + " ops (" + inserts + " inserts, " + updates + " updates, " + replaces + " replaces, "
                    + deletes + " deletes)";
        }
    }

    MixedWorkload(MongoDatabase db, long seed) {
        this.db = db;
        this.random = new Random(seed);
        for (String c : COLLECTIONS) {
            live.put(c, new ArrayList<>());
            deleted.put(c, new ArrayList<>());
            pending.put(c, new java.util.LinkedHashMap<>());
            issuedPerCollection.put(c, new Counts(0, 0, 0, 0));
        }
    }

    /** A first document per collection, written before the workload. */
    static Document seed(String collection) {
        return new Document("_id", "seed-" + collection).append("seed", true);
    }

    /** Writes {@code operations} changes; returns them counted by kind, as the server acknowledged them. */
    Counts run(int operations) {
        for (int i = 0; i < operations; i++) {
            String c = COLLECTIONS.get(random.nextInt(COLLECTIONS.size()));
            List<BsonValue> ids = live.get(c);
            double r = random.nextDouble();
            Counts one;
            if (ids.isEmpty() || r < 0.3) {
                List<BsonValue> gone = deleted.get(c);
                BsonValue id = !gone.isEmpty() && random.nextInt(10) == 0 ? gone.remove(pick(c, gone)) : newId(c);
                queue(c, id, new InsertOneModel<>(document(id, 0)));
                ids.add(id);
                one = new Counts(1, 0, 0, 0);
            } else if (r < 0.6) {
                BsonValue id = ids.get(pick(c, ids));
                queue(c, id, new UpdateOneModel<>(Filters.eq("_id", id), Updates.combine(
                        Updates.inc("version", 1), Updates.set("status", "s" + random.nextInt(5)),
                        Updates.set("amount", new Decimal128(BigDecimal.valueOf(random.nextInt(1_000_000), 2))),
                        Updates.set("touchedAt", new java.util.Date(1_700_000_000_000L + i)))));
                one = new Counts(0, 1, 0, 0);
            } else if (r < 0.8) {
                BsonValue id = ids.get(pick(c, ids));
                queue(c, id, new ReplaceOneModel<>(Filters.eq("_id", id), document(id, i)));
                one = new Counts(0, 0, 1, 0);
            } else {
                BsonValue id = ids.remove(pick(c, ids));
                queue(c, id, new DeleteOneModel<>(Filters.eq("_id", id)));
                deleted.get(c).add(id);
                one = new Counts(0, 0, 0, 1);
            }
            issuedPerCollection.put(c, issuedPerCollection.get(c).plus(one));
            if (pending.get(c).size() >= BULK) {
                flush(c);
            }
        }
        COLLECTIONS.forEach(this::flush);
        return applied;
    }

    /**
     * A random index into {@code ids}, preferring a document with no change pending in the bulk (the
     * next ones after the drawn index are tried), so bulks fill up before a document repeats.
     */
    private int pick(String c, List<BsonValue> ids) {
        int drawn = random.nextInt(ids.size());
        Map<BsonValue, WriteModel<BsonDocument>> inBulk = pending.get(c);
        for (int i = 0; i < Math.min(ids.size(), 64); i++) {
            int index = (drawn + i) % ids.size();
            if (!inBulk.containsKey(ids.get(index))) {
                return index;
            }
        }
        return drawn;
    }

    /** Adds a change to the collection's bulk, sending the bulk first if it already changes this document. */
    private void queue(String c, BsonValue id, WriteModel<BsonDocument> model) {
        if (pending.get(c).containsKey(id)) {
            flush(c); // the counts of what is pending do not include this change yet
        }
        pending.get(c).put(id, model);
    }

    private void flush(String c) {
        Map<BsonValue, WriteModel<BsonDocument>> byId = pending.get(c);
        if (byId.isEmpty()) {
            return;
        }
        // distinct documents: any order is the same result, so group by kind for few commands
        List<WriteModel<BsonDocument>> models = new ArrayList<>(byId.values());
        models.sort(java.util.Comparator.comparing(m -> m.getClass().getSimpleName()));
        BulkWriteResult result;
        try {
            result = db.getCollection(c, BsonDocument.class).bulkWrite(models, new BulkWriteOptions().ordered(false));
        } catch (RuntimeException e) {
            throw new IllegalStateException("the source refused a bulk of the workload on " + c + " (" + models.size() + " changes)", e);
        }
        Counts issued = issuedPerCollection.get(c);
        // every change must really have happened on the server, or the test would prove less than it claims
        if (result.getInsertedCount() != issued.inserts() || result.getDeletedCount() != issued.deletes()
                || result.getMatchedCount() != issued.updates() + issued.replaces()) {
            throw new IllegalStateException("the source did not apply the workload as written: " + result + " for " + issued);
        }
        applied = applied.plus(issued);
        issuedPerCollection.put(c, new Counts(0, 0, 0, 0));
        byId.clear();
    }

    private BsonValue newId(String collection) {
        int n = nextId++;
        return switch (collection) {
            case "orders" -> new org.bson.BsonObjectId(new ObjectId());
            case "customers" -> new org.bson.BsonString(String.format("c-%06d", n));
            default -> new BsonDocument("sku", new org.bson.BsonString("p-" + n)).append("region", new org.bson.BsonString(n % 2 == 0 ? "eu" : "us"));
        };
    }

    /** A document of many BSON types: int32 and int64, double, Decimal128, dates, binary subtypes, nested arrays, null. */
    private BsonDocument document(BsonValue id, int step) {
        Document d = new Document("_id", id)
                .append("version", 1)
                .append("step", (long) step << 20)
                .append("price", random.nextInt(100_000) / 100.0)
                .append("amount", new Decimal128(BigDecimal.valueOf(random.nextInt(1_000_000), 2)))
                .append("createdAt", new java.util.Date(1_700_000_000_000L + step))
                .append("active", random.nextBoolean())
                .append("note", random.nextInt(4) == 0 ? null : "n".repeat(random.nextInt(120)))
                .append("blob", new BsonBinary(new byte[]{(byte) step, 1, 2, 3}))
                .append("ref", new BsonBinary(new UUID(random.nextLong(), random.nextLong()), UuidRepresentation.STANDARD))
                .append("lines", List.of(new Document("sku", "p-" + random.nextInt(50)).append("qty", 1 + random.nextInt(3)),
                        List.of(1, 2L, 3.5)));
        return d.toBsonDocument();
    }
}
