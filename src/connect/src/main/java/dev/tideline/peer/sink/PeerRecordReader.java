package dev.tideline.peer.sink;

import dev.tideline.event.EventHeaders;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.peer.ContentHash;
import dev.tideline.peer.Incoming;
import dev.tideline.peer.PeerHeaders;
import dev.tideline.peer.PeerStamp;
import dev.tideline.peer.StampKeys;
import dev.tideline.peer.Version;
import dev.tideline.sink.decode.Decoded;
import dev.tideline.sink.decode.RecordDecoder;
import dev.tideline.sink.decode.SinkChange;
import dev.tideline.sink.route.NamespaceRouter;
import dev.tideline.sink.route.RoutedChange;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonTimestamp;

/**
 * Reads a record of a peer-mode source: the change (through the normal sink's decoder and router, so
 * the scope settings collection.include/exclude apply), plus the peer headers tl.origin, tl.cluster,
 * tl.origin.version and tl.origin.base. A write must carry a valid stamp matching that version.
 */
final class PeerRecordReader {
    private final RecordDecoder decoder;
    private final NamespaceRouter router;
    private final StampKeys keys;

    PeerRecordReader(RecordDecoder decoder, NamespaceRouter router, StampKeys keys) {
        this.decoder = decoder;
        this.router = router;
        this.keys = keys;
    }

    /** @return empty for records that are not changes, or that the scope leaves out */
    Optional<PeerChange> read(SinkRecord record) {
        if (record.value() == null) {
            return Optional.empty(); // a Kafka tombstone for compaction: the delete record before it carries the change
        }
        Decoded decoded = decoder.decode(record);
        if (!(decoded instanceof SinkChange change)) {
            return Optional.empty();
        }
        Optional<RoutedChange> routed = router.route(change);
        if (routed.isEmpty()) {
            return Optional.empty();
        }
        String origin = required(record, EventHeaders.ORIGIN);
        String cluster = required(record, PeerHeaders.CLUSTER);
        Version version = version(record, PeerHeaders.VERSION, required(record, PeerHeaders.VERSION));
        String baseText = header(record, PeerHeaders.BASE);
        Version base = baseText == null ? null : version(record, PeerHeaders.BASE, baseText);
        if (!version.origin().equals(origin)) {
            throw new MalformedRecordException("header " + PeerHeaders.VERSION + " (" + version + ") names another origin than "
                    + EventHeaders.ORIGIN + " (" + origin + ")");
        }
        if (change.sourceNs() == null) {
            throw new MalformedRecordException("a record of " + record.topic() + " does not say where the change happened: peer "
                    + "mode reads only topics of Tideline sources running with peer.cluster.id");
        }
        String content = null;
        String unauthentic = null;
        if (!change.isDelete()) {
            content = ContentHash.of(change.document());
            PeerStamp stamp = PeerStamp.read(change.document());
            if (stamp == null || !stamp.hash().equals(content) || !stamp.version().equals(version)) {
                throw new MalformedRecordException("the document of a peer write must carry a '_tl' stamp matching its content "
                        + "and version " + version + ": is the source running with peer.cluster.id?");
            }
            if (!stamp.authentic(keys, cluster, change.sourceNs(), change.id())) {
                unauthentic = notSigned(cluster, version, stamp.mac());
            }
        } else {
            StampKeys.Mac128 mac = macHeader(record);
            if (!keys.verify(mac, new StampKeys.Bound(cluster, change.sourceNs().fullName(), change.id(), version, null, base))) {
                unauthentic = notSigned(cluster, version, mac);
            }
        }
        BsonTimestamp sourceTime = change.version() != null && change.version().isTimestamp() ? change.version().asTimestamp() : null;
        return Optional.of(new PeerChange(record, routed.get().destination(), change.id(),
                new Incoming(origin, cluster, version, base, content, sourceTime), change.document(),
                header(record, EventHeaders.TENANT), sourceTime, unauthentic));
    }

    private String notSigned(String cluster, Version version, StampKeys.Mac128 mac) {
        return "the record of version " + version + " emitted by " + cluster + " is not signed with this link's peer.stamp.key ("
                + (mac == null ? "no MAC" : "key " + mac.keyId() + ", this sink verifies " + keys.keyId() + " and its previous key")
                + "): held, never applied. Set the same peer.stamp.key on every peer source and sink of the link (a record "
                + "made before the key was set, or by a producer outside the link, never verifies)";
    }

    private static StampKeys.Mac128 macHeader(SinkRecord record) {
        String v = header(record, PeerHeaders.MAC);
        int colon = v == null ? -1 : v.indexOf(':');
        return colon <= 0 ? null : new StampKeys.Mac128(v.substring(0, colon), v.substring(colon + 1));
    }

    private static Version version(SinkRecord record, String name, String text) {
        try {
            return Version.parse(text);
        } catch (IllegalArgumentException e) {
            throw new MalformedRecordException("header " + name + " of a record of " + record.topic() + ": " + e.getMessage(), e);
        }
    }

    private static String required(SinkRecord record, String name) {
        String v = header(record, name);
        if (v == null || v.isBlank()) {
            throw new MalformedRecordException("a record of " + record.topic() + " has no " + name + " header: peer mode "
                    + "reads only topics of Tideline sources running with peer.cluster.id");
        }
        return v;
    }

    private static String header(SinkRecord record, String name) {
        Header h = record.headers().lastWithName(name);
        if (h == null || h.value() == null) {
            return null;
        }
        Object v = h.value();
        return v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString();
    }
}
