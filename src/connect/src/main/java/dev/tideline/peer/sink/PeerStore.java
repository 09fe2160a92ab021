package dev.tideline.peer.sink;

import com.mongodb.MongoWriteException;
import com.mongodb.ReadConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.result.DeleteResult;
import com.mongodb.client.result.UpdateResult;
import dev.tideline.event.Namespace;
import dev.tideline.log.LogText;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.Version;
import dev.tideline.sign.Mac128;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The peer sink's reads and writes on its own cluster: current documents and tombstones, and the
 * CONDITIONAL writes that move a document from the state a decision was made on to the next one.
 * A write whose condition no longer holds (an application wrote in between, or a duplicate key on
 * insert) reports {@code false}: the caller reads again and decides again.
 */
final class PeerStore {
    private static final Logger log = LoggerFactory.getLogger(PeerStore.class);

    /**
     * What the destination holds for one document: the document (null when absent), the version of its tombstone
     * when one is kept and trusted (null otherwise), and the tombstone document as read, trusted or not (null when
     * none: a write replaces exactly that one).
     */
    record Held(BsonDocument document, Version tombstone, BsonDocument tombstoneRead) {
    }

    private final MongoClient client;
    private final long tombstoneTtlMs;
    private final Set<String> indexedDatabases = new HashSet<>();
    private StampTrust trust;

    PeerStore(MongoClient client, long tombstoneTtlMs) {
        this.client = client;
        this.tombstoneTtlMs = tombstoneTtlMs;
    }

    /** Set once, before the first read: what the store trusts of the tombstones it reads. */
    void trust(StampTrust trust) {
        this.trust = trust;
    }

    Map<BsonValue, Held> read(Namespace ns, Collection<BsonValue> ids) {
        Map<BsonValue, BsonDocument> docs = new HashMap<>();
        // majority: a delete this read reflects is one the change streams (LocalChangeWatcher) can already show
        for (BsonDocument d : documents(ns).withReadConcern(ReadConcern.MAJORITY).find(Filters.in("_id", ids))) {
            docs.put(d.get("_id"), d);
        }
        List<BsonDocument> keys = new ArrayList<>(ids.size());
        ids.forEach(id -> keys.add(PeerCollections.tombstoneKey(ns.coll(), id)));
        Map<BsonValue, Version> tombs = new HashMap<>();
        Map<BsonValue, BsonDocument> tombsRead = new HashMap<>();
        long now = System.currentTimeMillis();
        for (BsonDocument t : tombstones(ns.db()).find(Filters.in("_id", keys))) {
            BsonValue id = t.getDocument("_id").get("id");
            tombsRead.put(id, t);
            BsonValue expire = t.get("expireAt");
            if (expire != null && expire.isDateTime() && expire.asDateTime().getValue() < now) {
                continue; // expired: the TTL monitor has not removed it yet
            }
            Version v = trust.tombstone(ns, id, t); // one that does not authenticate here counts as none
            if (v != null) {
                tombs.put(id, v);
            }
        }
        Map<BsonValue, Held> out = new HashMap<>();
        for (BsonValue id : ids) {
            out.put(id, new Held(docs.get(id), tombs.get(id), tombsRead.get(id)));
        }
        return out;
    }

    /** Replaces exactly the document that was read (every top-level field equal, stamp included). */
    boolean replace(Namespace ns, BsonDocument current, BsonDocument next) {
        UpdateResult r = documents(ns).replaceOne(current.clone(), next);
        return r.getMatchedCount() == 1;
    }

    /**
     * @return false when a document with this {@code _id} was inserted meanwhile (decide again)
     * @throws MongoWriteException when the destination refuses the document, a duplicate key on another unique
     *                             index included: the caller holds it
     */
    boolean insert(Namespace ns, BsonDocument doc) {
        try {
            documents(ns).insertOne(doc);
            return true;
        } catch (MongoWriteException e) {
            if (e.getError().getCode() == MongoErrors.DUPLICATE_KEY
                    && documents(ns).find(Filters.eq("_id", doc.get("_id"))).first() != null) {
                return false;
            }
            throw e;
        }
    }

    boolean delete(Namespace ns, BsonDocument current) {
        DeleteResult r = documents(ns).deleteOne(current.clone());
        return r.getDeletedCount() == 1;
    }

    /**
     * Sets the tombstone to {@code version}, provided the tombstone document still is {@code expected} as read (null:
     * none). One that was not trusted (expired, forged, or made with a key no longer configured) is replaced too.
     */
    boolean keepTombstone(Namespace ns, BsonValue id, BsonDocument expected, Version version) {
        ensureTtlIndex(ns.db());
        BsonDocument key = PeerCollections.tombstoneKey(ns.coll(), id);
        dev.tideline.sign.Mac128 mac = trust.tombstoneMac(ns, id, version);
        BsonDocument tomb = new BsonDocument("_id", key).append("v", version.toBson())
                .append("expireAt", new BsonDateTime(System.currentTimeMillis() + tombstoneTtlMs))
                .append("k", new org.bson.BsonString(mac.keyId())).append("m", new org.bson.BsonString(mac.mac()));
        if (expected == null) {
            try {
                tombstones(ns.db()).insertOne(tomb);
                return true;
            } catch (MongoWriteException e) {
                if (e.getError().getCode() == MongoErrors.DUPLICATE_KEY) {
                    return false;
                }
                throw e;
            }
        }
        // every field as read: the document, not only its version, must be the one the decision was made on
        UpdateResult r = tombstones(ns.db()).replaceOne(expected.clone(), tomb, new ReplaceOptions().upsert(false));
        return r.getMatchedCount() == 1;
    }

    /** The document exists again: its stamp protects it from now on. */
    void dropTombstone(Namespace ns, BsonValue id) {
        tombstones(ns.db()).deleteOne(Filters.eq("_id", PeerCollections.tombstoneKey(ns.coll(), id)));
    }

    /** This cluster's heartbeat document: {_id: cluster id, at: wall time}. */
    void writeHeartbeat(Namespace ns, String self, long at) {
        documents(ns).replaceOne(Filters.eq("_id", self), new BsonDocument("_id", new org.bson.BsonString(self))
                .append("at", new BsonDateTime(at)), new ReplaceOptions().upsert(true));
    }

    void recordConflict(Namespace ns, BsonDocument conflict) {
        client.getDatabase(ns.db()).getCollection(PeerCollections.CONFLICTS, BsonDocument.class).insertOne(conflict);
    }

    private void ensureTtlIndex(String db) {
        if (indexedDatabases.add(db)) {
            // expireAfter 0: each tombstone carries its own expiry time
            tombstones(db).createIndex(Indexes.ascending("expireAt"), new IndexOptions().expireAfter(0L, TimeUnit.SECONDS));
            log.debug("TTL index on {}.{} ensured", LogText.escape(db), PeerCollections.TOMBSTONES);
        }
    }

    private MongoCollection<BsonDocument> documents(Namespace ns) {
        return client.getDatabase(ns.db()).getCollection(ns.coll(), BsonDocument.class);
    }

    private MongoCollection<BsonDocument> tombstones(String db) {
        return client.getDatabase(db).getCollection(PeerCollections.TOMBSTONES, BsonDocument.class);
    }

    static BsonDateTime now() {
        return new BsonDateTime(new Date().getTime());
    }
}
