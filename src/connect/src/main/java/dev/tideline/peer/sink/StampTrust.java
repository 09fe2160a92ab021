package dev.tideline.peer.sink;

import dev.tideline.event.Namespace;
import dev.tideline.peer.DocState;
import dev.tideline.peer.OriginDetector;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.PeerStamp;
import dev.tideline.peer.StampKeys;
import dev.tideline.peer.Version;
import dev.tideline.sign.Mac128;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * What the peer sink believes of stamps and tombstones, with the link's key ({@link StampKeys}): it signs
 * what it writes for this cluster, and trusts on its cluster only what authenticates here.
 *
 * <p>A stamp or tombstone WITHOUT any MAC whose version is older than {@code unsignedBefore}
 * ({@code peer.stamp.unsigned.before}: when the link got its key) was written before the link had one, and is
 * trusted: otherwise a document nobody writes again would hold every peer change of it for good. The cut-off is
 * configuration, not data, so nobody who can only write the database can move it. An application forging such an
 * old-looking stamp gains nothing: its write is labelled by this cluster's source later than that cutoff, so this
 * cluster's own record of it wins over the forged version here as on every peer. Anything else that does not
 * authenticate is an application's write (a document: a local write not stamped yet) or is ignored (a tombstone).
 */
final class StampTrust {
    private final String self;
    private final StampKeys keys;
    /** epoch seconds: unsigned stamps and tombstones older than this were written before the key; 0: none is trusted */
    private final long unsignedBefore;

    StampTrust(String self, StampKeys keys, long unsignedBefore) {
        this.self = self;
        this.keys = keys;
        this.unsignedBefore = unsignedBefore;
    }

    StampKeys keys() {
        return keys;
    }

    /** What this cluster holds for a document as read, with the tombstone still kept for it. */
    DocState state(Namespace ns, BsonValue id, BsonDocument document, Version tombstone) {
        OriginDetector.Detected d = OriginDetector.detect(document, s -> s.authentic(keys, self, ns, id));
        PeerStamp s = d.stamp() != null ? d.stamp() : unsignedOld(d.unverified()) ? d.unverified() : null;
        return s == null ? new DocState.Present(d.content(), null, null, tombstone)
                : new DocState.Present(d.content(), s.version(), s.base(), tombstone);
    }

    /** The version of a tombstone document when it can be trusted; null otherwise (treated as none). */
    Version tombstone(Namespace ns, BsonValue id, BsonDocument tombstone) {
        Version v = Version.fromBson(tombstone.get("v"));
        if (v == null) {
            return null;
        }
        Mac128 mac = PeerStamp.macOf(tombstone);
        if (mac == null) {
            return Integer.toUnsignedLong(v.time().getTime()) < unsignedBefore ? v : null;
        }
        return keys.verify(mac, PeerCollections.tombstoneBound(self, ns, id, v)) ? v : null;
    }

    Mac128 tombstoneMac(Namespace ns, BsonValue id, Version v) {
        return keys.sign(PeerCollections.tombstoneBound(self, ns, id, v));
    }

    /** The document a record carries, with its stamp signed for this cluster's {@code ns}. */
    BsonDocument signedHere(Namespace ns, BsonValue id, BsonDocument document) {
        PeerStamp stamp = PeerStamp.read(document);
        return stamp.signed(keys, self, ns, id).applyTo(document);
    }

    private boolean unsignedOld(PeerStamp s) {
        return s != null && s.mac() == null && Integer.toUnsignedLong(s.version().time().getTime()) < unsignedBefore;
    }
}
