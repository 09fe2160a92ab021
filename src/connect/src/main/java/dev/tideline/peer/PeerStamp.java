package dev.tideline.peer;

import dev.tideline.event.Namespace;
import dev.tideline.sign.Mac128;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The metadata a peer-replicated document carries in {@value #FIELD}:
 * {@code {o: origin id, t: origin time, h: content hash, b: {t, o} (optional), k: key id, m: MAC}}.
 * {@code h} is the {@link ContentHash} of the document without the stamp: a stamp whose hash no longer
 * matches the content is stale (an application changed the document since). {@code b} is the version
 * the write was based on, when known: it tells a conflict (concurrent writes) from a plain newer write.
 * {@code k} and {@code m} authenticate the stamp ({@link StampKeys}): made by a connector of the link for
 * this cluster, namespace and {@code _id}, so an application cannot forge one nor copy one from elsewhere.
 */
public record PeerStamp(Version version, String hash, Version base, Mac128 mac) {
    public static final String FIELD = "_tl";

    public PeerStamp(Version version, String hash, Version base) {
        this(version, hash, base, null);
    }

    public String origin() {
        return version.origin();
    }

    /** What this stamp's MAC is about, written in {@code cluster}'s collection {@code ns}. */
    public StampKeys.Bound bound(String cluster, Namespace ns, BsonValue id) {
        return new StampKeys.Bound(cluster, ns.fullName(), id, version, hash, base);
    }

    /** The same stamp, signed for the document {@code id} of {@code ns} on {@code cluster}. */
    public PeerStamp signed(StampKeys keys, String cluster, Namespace ns, BsonValue id) {
        return new PeerStamp(version, hash, base, keys.sign(bound(cluster, ns, id)));
    }

    /** True when it was made by a connector of the link for this document of {@code ns} on {@code cluster}. */
    public boolean authentic(StampKeys keys, String cluster, Namespace ns, BsonValue id) {
        return keys.verify(mac, bound(cluster, ns, id));
    }

    public BsonDocument toBson() {
        BsonDocument d = new BsonDocument("o", new BsonString(version.origin())).append("t", version.time())
                .append("h", new BsonString(hash));
        if (base != null) {
            d.append("b", base.toBson());
        }
        if (mac != null) {
            d.append("k", new BsonString(mac.keyId())).append("m", new BsonString(mac.mac()));
        }
        return d;
    }

    /** The stamp a document carries, authentic or not; null when it has none (or not in this shape). */
    public static PeerStamp read(BsonDocument document) {
        BsonValue v = document.get(FIELD);
        if (v == null || !v.isDocument()) {
            return null;
        }
        BsonDocument d = v.asDocument();
        Version version = Version.fromBson(d);
        BsonValue h = d.get("h");
        if (version == null || h == null || !h.isString()) {
            return null;
        }
        return new PeerStamp(version, h.asString().getValue(), Version.fromBson(d.get("b")), macOf(d));
    }

    /** The {@code k} and {@code m} fields of a stamp or tombstone; null when either is missing. */
    public static Mac128 macOf(BsonDocument d) {
        BsonValue k = d.get("k");
        BsonValue m = d.get("m");
        return k != null && k.isString() && m != null && m.isString() ? new Mac128(k.asString().getValue(),
                m.asString().getValue()) : null;
    }

    /** A copy of the document with this stamp in place of any other (appended last, {@code _id} stays first). */
    public BsonDocument applyTo(BsonDocument document) {
        BsonDocument out = new BsonDocument();
        for (var e : document.entrySet()) {
            if (!e.getKey().equals(FIELD)) {
                out.append(e.getKey(), e.getValue());
            }
        }
        return out.append(FIELD, toBson());
    }
}
