package dev.tideline.sink.guard;

import com.mongodb.MongoBulkWriteException;
import com.mongodb.bulk.BulkWriteError;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.InsertOneModel;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.WriteModel;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Namespace;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.sink.check.ExactMatch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.bson.BsonBinaryWriter;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonValueCodec;
import org.bson.codecs.EncoderContext;
import org.bson.conversions.Bson;
import org.bson.io.BasicOutputBuffer;

/**
 * The sidecar collection {@value #COLLECTION} in each destination database: one entry per
 * destination document that a versioned change touched,
 * {@code {_id: {ns: <collection>, id: <_id>}, v: <version>, deleted: <bool>, appliedAt: <date>, t: <topic>, p: <partition>, o: <txnOpIndex>}}.
 * Kept apart so destination documents stay byte-identical to the source. {@code t} and {@code p} say
 * which topic partition carried the change last: a resnapshot's sweep ({@link SweepRule}) removes only
 * documents of the partition its marker arrived on, whose changes this task applies in order. {@code o} (an int64,
 * only on changes of a transaction whose record said it) orders changes of one cluster time; added without changing
 * {@code v}, so a sink of an older version reads entries as before (it ignores {@code o}, and its whole-entry
 * replaces drop it: equal versions then apply in arrival order, as they always did).
 */
public final class VersionStore {
    public static final String COLLECTION = "_tideline_versions";
    private static final int IN_CHUNK = 1000;
    private static final String TOPIC = "t";
    private static final String PARTITION = "p";
    /** The tie-breaker of the version: the change's index in its transaction (absent when it had none). */
    private static final String TXN_OP = "o";
    private static final ReplaceOptions UPSERT = new ReplaceOptions().upsert(true);
    private static final BsonValueCodec VALUES = new BsonValueCodec();
    private static final EncoderContext ENCODE = EncoderContext.builder().build();

    private final MongoClient client;

    public VersionStore(MongoClient client) {
        this.client = client;
    }

    /**
     * What the sidecar holds for these documents: one {@code $in} read per 1,000 ids. Also says which
     * ids have no entry at all, so that {@link #write} can insert theirs instead of upserting.
     */
    public Snapshot read(Namespace ns, List<BsonValue> ids) {
        Map<BsonValue, StoredVersion> found = new HashMap<>();
        Set<BsonValue> withEntry = new HashSet<>();
        for (int i = 0; i < ids.size(); i += IN_CHUNK) {
            for (BsonDocument entry : sidecar(ns).find(keysIn(ns, ids.subList(i, Math.min(ids.size(), i + IN_CHUNK))))) {
                BsonValue id = entry.getDocument("_id").get("id");
                withEntry.add(id);
                BsonValue v = entry.get("v");
                if (v != null && !v.isNull()) {
                    BsonValue op = entry.get(TXN_OP);
                    found.put(id, new StoredVersion(v, entry.getBoolean("deleted", BsonBoolean.FALSE).getValue(),
                            op != null && op.isInt64() && op.asInt64().getValue() >= 0 ? op.asInt64().getValue() : null));
                }
            }
        }
        Set<BsonValue> absent = new HashSet<>(ids);
        absent.removeAll(withEntry);
        return new Snapshot(found, absent);
    }

    /**
     * Records the versions of changes about to be applied, in one unordered bulk write per 1,000:
     * an entry the read found absent is inserted, any other replaced by {@code _id} (upserting).
     *
     * <p>Why insert: an insert is MongoDB's cheapest write (no query by {@code _id} before it, no update
     * statement, no {@code upserted} list in the reply), and a fresh destination document (every copy,
     * every insert) has no entry. If an entry appeared since
     * the read (duplicate key, 11000: another connector writing the same destination document, or an
     * {@code _id} the server finds equal to a stored one of another numeric type), it is written the
     * way every entry was before, by an upserting replace: no weaker than before against two writers.
     */
    public void write(Namespace ns, List<VersionedWrite> writes) {
        MongoCollection<BsonDocument> sidecar = sidecar(ns);
        long now = System.currentTimeMillis();
        for (int i = 0; i < writes.size(); i += IN_CHUNK) {
            List<VersionedWrite> chunk = writes.subList(i, Math.min(writes.size(), i + IN_CHUNK));
            List<WriteModel<BsonDocument>> models = new ArrayList<>(chunk.size());
            for (VersionedWrite w : chunk) {
                BsonDocument entry = entry(ns, w, now);
                models.add(w.fresh() ? new InsertOneModel<>(entry) : replace(entry));
            }
            List<WriteModel<BsonDocument>> raced = writeReturningRaces(sidecar, models);
            if (!raced.isEmpty()) {
                sidecar.bulkWrite(raced, new BulkWriteOptions().ordered(false));
            }
        }
    }

    /**
     * Inserts the entries of writes whose entry was not read first, in one unordered bulk write per 1,000; returns the
     * writes refused because their document has an entry already (duplicate key, 11000), for which nothing was
     * written: the caller reads those, decides, and replaces the entries of the changes it applies. Any other error
     * throws. The refused are the cost of guessing "new": a read and a replace more for each.
     */
    public List<VersionedWrite> insertUnlessPresent(Namespace ns, List<VersionedWrite> writes) {
        MongoCollection<BsonDocument> sidecar = sidecar(ns);
        long now = System.currentTimeMillis();
        List<VersionedWrite> present = new ArrayList<>();
        for (int i = 0; i < writes.size(); i += IN_CHUNK) {
            List<VersionedWrite> chunk = writes.subList(i, Math.min(writes.size(), i + IN_CHUNK));
            List<WriteModel<BsonDocument>> models = new ArrayList<>(chunk.size());
            for (VersionedWrite w : chunk) {
                models.add(new InsertOneModel<>(entry(ns, w, now)));
            }
            for (int refused : writeRefusingDuplicates(sidecar, models, index -> true)) {
                present.add(chunk.get(refused));
            }
        }
        return present;
    }

    /** Writes the models; returns, as upserting replaces, the inserts refused because their entry exists by now. */
    private static List<WriteModel<BsonDocument>> writeReturningRaces(MongoCollection<BsonDocument> sidecar,
                                                                      List<WriteModel<BsonDocument>> models) {
        List<WriteModel<BsonDocument>> raced = new ArrayList<>();
        for (int refused : writeRefusingDuplicates(sidecar, models, index -> models.get(index) instanceof InsertOneModel)) {
            raced.add(replace(((InsertOneModel<BsonDocument>) models.get(refused)).getDocument()));
        }
        return raced;
    }

    /**
     * Writes the models unordered; returns the indexes of those refused with duplicate key (11000) that
     * {@code mayClash} accepts. Any other refusal, or a write concern error, throws the bulk write's exception.
     */
    private static List<Integer> writeRefusingDuplicates(MongoCollection<BsonDocument> sidecar, List<WriteModel<BsonDocument>> models,
                                                         IntPredicate mayClash) {
        try {
            sidecar.bulkWrite(models, new BulkWriteOptions().ordered(false));
            return List.of();
        } catch (MongoBulkWriteException e) {
            if (e.getWriteConcernError() != null) {
                throw e;
            }
            List<Integer> refused = new ArrayList<>();
            for (BulkWriteError err : e.getWriteErrors()) {
                if (err.getCode() != MongoErrors.DUPLICATE_KEY || !mayClash.test(err.getIndex())) {
                    throw e;
                }
                refused.add(err.getIndex());
            }
            return refused;
        }
    }

    /**
     * {@code {_id: {$in: [<key>, ...]}}} as BSON bytes, written directly like {@link #entry}. Exact whatever
     * the ids: each element is a document whose first field is {@code ns}, which {@code $in} compares as a
     * whole value (field order included), never as an operator or a pattern.
     */
    private static BsonDocument keysIn(Namespace ns, List<BsonValue> ids) {
        BasicOutputBuffer out = new BasicOutputBuffer(64 + 32 * ids.size());
        try (BsonBinaryWriter writer = new BsonBinaryWriter(out)) {
            writer.writeStartDocument();
            writer.writeStartDocument("_id");
            writer.writeStartArray("$in");
            for (BsonValue id : ids) {
                writer.writeStartDocument();
                writeKeyFields(writer, ns, id);
                writer.writeEndDocument();
            }
            writer.writeEndArray();
            writer.writeEndDocument();
            writer.writeEndDocument();
        }
        return new RawBsonDocument(out.getInternalBuffer(), 0, out.getPosition());
    }

    /** An entry's {@code _id}: field order is part of an embedded document's equality, always ns, then id. */
    private static void writeKeyFields(BsonBinaryWriter writer, Namespace ns, BsonValue id) {
        writer.writeString("ns", ns.coll());
        writer.writeName("id");
        VALUES.encode(writer, id, ENCODE);
    }

    private static WriteModel<BsonDocument> replace(BsonDocument entry) {
        return new ReplaceOneModel<>(ExactMatch.eq("_id", entry.get("_id")), entry, UPSERT);
    }

    /**
     * The entry as BSON bytes, written field by field: the driver then copies them as they are. Left
     * to the driver, the codec look-ups and writers of each small entry cost about as much as copying
     * the 1 KB document it stands for.
     */
    private static BsonDocument entry(Namespace ns, VersionedWrite w, long now) {
        BasicOutputBuffer out = new BasicOutputBuffer(128);
        try (BsonBinaryWriter writer = new BsonBinaryWriter(out)) {
            writer.writeStartDocument();
            writer.writeStartDocument("_id");
            writeKeyFields(writer, ns, w.id());
            writer.writeEndDocument();
            writer.writeName("v");
            VALUES.encode(writer, w.version(), ENCODE);
            writer.writeBoolean("deleted", w.deleted());
            writer.writeDateTime("appliedAt", now);
            if (w.topic() != null && w.partition() != null) {
                writer.writeString(TOPIC, w.topic());
                writer.writeInt32(PARTITION, w.partition());
            }
            if (w.txnOpIndex() != null) {
                writer.writeInt64(TXN_OP, w.txnOpIndex());
            }
            writer.writeEndDocument();
        }
        return new RawBsonDocument(out.getInternalBuffer(), 0, out.getPosition());
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
        sidecar(ns).updateMany(keysIn(ns, ids), Updates.combine(Updates.set("v", version), Updates.unset(TXN_OP),
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

    /** What a read found: the versions stored, and the ids with no entry at all (an entry without a usable version is neither). */
    public record Snapshot(Map<BsonValue, StoredVersion> versions, Set<BsonValue> absent) {
    }

    /**
     * A version to record: the document's id, the change's version, whether the change deletes, the
     * topic partition that carried it (null when unknown: such entries are never swept), and whether
     * the read found no entry for the document ({@code fresh}: inserted rather than upserted), and the change's
     * index in its transaction (null: none).
     */
    public record VersionedWrite(BsonValue id, BsonValue version, boolean deleted, String topic, Integer partition,
                                 boolean fresh, Long txnOpIndex) {
        /** A version without a tie-breaker. */
        public VersionedWrite(BsonValue id, BsonValue version, boolean deleted, String topic, Integer partition, boolean fresh) {
            this(id, version, deleted, topic, partition, fresh, null);
        }
    }

    private MongoCollection<BsonDocument> sidecar(Namespace ns) {
        return client.getDatabase(ns.db()).getCollection(COLLECTION, BsonDocument.class);
    }
}
