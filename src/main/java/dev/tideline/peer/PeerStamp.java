package dev.tideline.peer;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The metadata a peer-replicated document carries in {@value #FIELD}:
 * {@code {o: origin id, t: origin time, h: content hash, b: {t, o} (optional)}}. {@code h} is the
 * {@link ContentHash} of the document without the stamp: a stamp whose hash no longer matches the
 * content is stale (an application changed the document since). {@code b} is the version the write
 * was based on, when known: it tells a conflict (concurrent writes) from a plain newer write.
 */
public record PeerStamp(Version version, String hash, Version base) {
    public static final String FIELD = "_tl";

    public String origin() {
        return version.origin();
    }

    public BsonDocument toBson() {
        BsonDocument d = new BsonDocument("o", new BsonString(version.origin())).append("t", version.time())
                .append("h", new BsonString(hash));
        if (base != null) {
            d.append("b", base.toBson());
        }
        return d;
    }

    /** The stamp a document carries, valid or not; null when it has none (or not in this shape). */
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
        return new PeerStamp(version, h.asString().getValue(), Version.fromBson(d.get("b")));
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
