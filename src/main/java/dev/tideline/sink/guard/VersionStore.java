package dev.tideline.sink.guard;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.WriteModel;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Namespace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.conversions.Bson;

/**
 * The sidecar collection {@value #COLLECTION} in each destination database: one entry per
 * destination document that a versioned change touched,
 * {@code {_id: {ns: <collection>, id: <_id>}, v: <version>, deleted: <bool>, appliedAt: <date>, t: <topic>, p: <partition>}}.
 * Kept apart so destination documents stay byte-identical to the source. {@code t} and {@code p} say
 * which topic partition carried the change last: a resnapshot's sweep ({@link SweepRule}) removes only
 * documents of the partition its marker arrived on, whose changes this task applies in order.
 */
public final class VersionStore {
    public static final String COLLECTION = "_tideline_versions";
    private static final int IN_CHUNK = 1000;
    private static final String TOPIC = "t";
    private static final String PARTITION = "p";

    private final MongoClient client;

    public VersionStore(MongoClient client) {
        this.client = client;
    }

    /** One {@code $in} read (per 1,000 ids) of what the sidecar holds for these documents. */
    public Map<BsonValue, StoredVersion> read(Namespace ns, List<BsonValue> ids) {
        Map<BsonValue, StoredVersion> found = new HashMap<>();
        for (int i = 0; i < ids.size(); i += IN_CHUNK) {
            List<BsonDocument> keys = ids.subList(i, Math.min(ids.size(), i + IN_CHUNK)).stream()
                    .map(id -> key(ns, id)).toList();
            for (BsonDocument entry : sidecar(ns).find(Filters.in("_id", keys))) {
                BsonValue v = entry.get("v");
                if (v != null && !v.isNull()) {
                    found.put(entry.getDocument("_id").get("id"), new StoredVersion(v,
                            entry.getBoolean("deleted", BsonBoolean.FALSE).getValue()));
                }
            }
        }
        return found;
    }

    /** Records the versions of changes about to be applied (one unordered bulk write per 1,000). */
    public void write(Namespace ns, List<VersionedWrite> writes) {
        MongoCollection<BsonDocument> sidecar = sidecar(ns);
        BsonDateTime now = new BsonDateTime(System.currentTimeMillis());
        List<WriteModel<BsonDocument>> models = new ArrayList<>(Math.min(writes.size(), IN_CHUNK));
        for (VersionedWrite w : writes) {
            BsonDocument key = key(ns, w.id());
            BsonDocument entry = new BsonDocument("_id", key).append("v", w.version())
                    .append("deleted", BsonBoolean.valueOf(w.deleted())).append("appliedAt", now);
            if (w.topic() != null && w.partition() != null) {
                entry.append(TOPIC, new BsonString(w.topic())).append(PARTITION, new BsonInt32(w.partition()));
            }
            models.add(new ReplaceOneModel<>(Filters.eq("_id", key), entry, new ReplaceOptions().upsert(true)));
            if (models.size() == IN_CHUNK) {
                sidecar.bulkWrite(models, new BulkWriteOptions().ordered(false));
                models = new ArrayList<>(IN_CHUNK);
            }
        }
        if (!models.isEmpty()) {
            sidecar.bulkWrite(models, new BulkWriteOptions().ordered(false));
        }
    }

    /**
     * Each live entry (not a delete) of a destination collection whose last change came through this
     * topic partition. The caller must not change entries while this runs (the cursor reads them).
     */
    public void forEachLiveEntry(Namespace ns, String topic, int partition, Consumer<Entry> each) {
        Bson live = Filters.and(Filters.eq("_id.ns", ns.coll()), Filters.eq(TOPIC, topic), Filters.eq(PARTITION, partition),
                Filters.eq("deleted", false));
        for (BsonDocument e : sidecar(ns).find(live).projection(Projections.include("v")).batchSize(IN_CHUNK)) {
            BsonValue v = e.get("v");
            if (v != null && !v.isNull()) {
                each.accept(new Entry(e.getDocument("_id").get("id"), v));
            }
        }
    }

    /** Records these documents as deleted at {@code version} (a resnapshot's sweep removed them). */
    public void markDeleted(Namespace ns, List<BsonValue> ids, BsonValue version) {
        List<BsonDocument> keys = ids.stream().map(id -> key(ns, id)).toList();
        sidecar(ns).updateMany(Filters.in("_id", keys), Updates.combine(Updates.set("v", version),
                Updates.set("deleted", true), Updates.set("appliedAt", new BsonDateTime(System.currentTimeMillis()))));
    }

    /** How many live entries of this topic came through partitions {@code >= partitions} (which a marker did not reach). */
    public long countLiveBeyond(Namespace ns, String topic, int partitions) {
        return sidecar(ns).countDocuments(Filters.and(Filters.eq("_id.ns", ns.coll()), Filters.eq(TOPIC, topic),
                Filters.gte(PARTITION, partitions), Filters.eq("deleted", false)));
    }

    /** A live sidecar entry: a destination document's id and the version last applied to it. */
    public record Entry(BsonValue id, BsonValue version) {
    }

    /**
     * A version to record: the document's id, the change's version, whether the change deletes, and
     * the topic partition that carried it (null when unknown: such entries are never swept).
     */
    public record VersionedWrite(BsonValue id, BsonValue version, boolean deleted, String topic, Integer partition) {
    }

    private MongoCollection<BsonDocument> sidecar(Namespace ns) {
        return client.getDatabase(ns.db()).getCollection(COLLECTION, BsonDocument.class);
    }

    private static BsonDocument key(Namespace ns, BsonValue id) {
        // field order is part of an embedded document's equality: always ns, then id
        return new BsonDocument("ns", new BsonString(ns.coll())).append("id", id);
    }
}
