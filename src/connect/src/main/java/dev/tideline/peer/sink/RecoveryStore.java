package dev.tideline.peer.sink;

import com.mongodb.client.MongoClient;
import com.mongodb.client.model.Filters;
import dev.tideline.event.Namespace;
import dev.tideline.peer.OriginDetector;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.PeerStamp;
import dev.tideline.peer.StampKeys;
import dev.tideline.peer.Version;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * Peer recovery's reads and writes on ONE cluster, made with the peer sink's own store ({@link PeerStore}) and
 * trust ({@link StampTrust}), so a repaired document or delete is exactly what this cluster's peer sink would have
 * written: a stamp signed for this cluster (its source takes the document for a peer's write, not a local one),
 * a tombstone with its MAC and TTL set before the conditional delete, the tombstone dropped when a document is
 * written again. Every write is conditional on the state read: {@code false} means it changed since.
 *
 * <p>Stamps and tombstones without a MAC (made before the link had a key) are not trusted here: such a document
 * counts as a local write (its id is then reported, not decided), never as a version it cannot prove.
 */
public final class RecoveryStore {
    /** What the cluster holds for one id: as read, and as the sink would judge it. */
    public record Read(BsonValue id, BsonDocument document, OriginDetector.Detected detected, Version tombstone,
                       BsonDocument tombstoneRead) {
        public boolean present() {
            return document != null;
        }
    }

    private final MongoClient client;
    private final String cluster;
    private final StampKeys keys;
    private final PeerStore store;
    private final StampTrust trust;

    /** @param tombstoneTtlMs the link's {@code peer.tombstone.ttl.ms}: how long a tombstone written here is kept */
    public RecoveryStore(MongoClient client, String cluster, StampKeys keys, long tombstoneTtlMs) {
        this.client = client;
        this.cluster = cluster;
        this.keys = keys;
        this.store = new PeerStore(client, tombstoneTtlMs);
        this.trust = new StampTrust(cluster, keys, 0); // nothing unsigned is trusted: see the class comment
        store.trust(trust);
    }

    public String cluster() {
        return cluster;
    }

    public Map<BsonValue, Read> read(Namespace ns, Collection<BsonValue> ids) {
        Map<BsonValue, Read> out = new LinkedHashMap<>();
        store.read(ns, ids).forEach((id, h) -> out.put(id, new Read(id, h.document(),
                h.document() == null ? null : OriginDetector.detect(h.document(), s -> s.authentic(keys, cluster, ns, id)),
                h.tombstone(), h.tombstoneRead())));
        return out;
    }

    /**
     * Writes {@code document} (carrying the stamp it must have, signed anywhere) in place of what was read: a
     * conditional replace of exactly that document, or an insert when it was absent; then drops the tombstone read,
     * as the sink does when a document exists again.
     *
     * @return false when the document changed since it was read
     */
    public boolean write(Namespace ns, Read expected, BsonDocument document) {
        BsonDocument signed = trust.signedHere(ns, expected.id(), document);
        boolean written = expected.present() ? store.replace(ns, expected.document(), signed) : store.insert(ns, signed);
        if (written && expected.tombstoneRead() != null) {
            store.dropTombstone(ns, expected.id());
        }
        return written;
    }

    /**
     * Keeps a tombstone at {@code version}, then deletes exactly the document that was read, in the sink's order. When
     * the document changed since (the delete's condition fails), the tombstone just written is removed again, so a
     * write made meanwhile is not taken for older than this delete.
     *
     * @return false when the document or its tombstone changed since it was read
     */
    public boolean delete(Namespace ns, Read expected, Version version) {
        if (!store.keepTombstone(ns, expected.id(), expected.tombstoneRead(), version)) {
            return false;
        }
        if (!expected.present() || store.delete(ns, expected.document())) {
            return true;
        }
        client.getDatabase(ns.db()).getCollection(PeerCollections.TOMBSTONES, BsonDocument.class).deleteOne(Filters.and(
                Filters.eq("_id", PeerCollections.tombstoneKey(ns.coll(), expected.id())), Filters.eq("v", version.toBson())));
        return false;
    }

    /** {@code document} (stamp aside) with a new stamp of this cluster's: a local write given its version. */
    public static BsonDocument stamped(BsonDocument document, String content, Version version, Version base) {
        return new PeerStamp(version, content, base).applyTo(document);
    }

    /**
     * This cluster's time now, in seconds: the server's {@code operationTime} where it gives one (replica sets), else
     * its {@code localTime}; this machine's clock only when the server gives neither.
     */
    public BsonTimestamp now() {
        BsonDocument reply = client.getDatabase("admin").runCommand(new BsonDocument("isMaster", new BsonInt32(1)), BsonDocument.class);
        BsonValue op = reply.get("operationTime");
        if (op != null && op.isTimestamp()) {
            return op.asTimestamp();
        }
        long ms = reply.isDateTime("localTime") ? reply.getDateTime("localTime").getValue() : System.currentTimeMillis();
        return new BsonTimestamp((int) (ms / 1000), 0);
    }
}
