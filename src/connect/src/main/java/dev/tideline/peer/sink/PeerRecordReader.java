package dev.tideline.peer.sink;

import dev.tideline.event.EventHeaders;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.peer.ContentHash;
import dev.tideline.peer.Incoming;
import dev.tideline.peer.PeerHeaders;
import dev.tideline.peer.PeerStamp;
import dev.tideline.peer.StampKeys;
import dev.tideline.peer.Version;
import dev.tideline.sign.Mac128;
import dev.tideline.sink.decode.SinkChange;
import dev.tideline.sink.front.MarkerReader;
import dev.tideline.sink.front.SinkFrontEnd;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonTimestamp;

/**
 * Reads a record of a peer-mode source: the change through the sink's front end ({@link SinkFrontEnd}: size,
 * signature, decoding and safety checks, namespace policy and route, so database.allow, record.max.bytes and
 * collection.include/exclude hold here as in the sink), plus the peer headers tl.origin, tl.cluster,
 * tl.origin.version and tl.origin.base. A write must carry a stamp matching that version, and a stamp or delete MAC
 * that verifies with the link's key; a record that does not is refused ({@link UnauthenticRecordException}).
 */
final class PeerRecordReader {
    private final SinkFrontEnd frontEnd;
    private final StampKeys keys;

    PeerRecordReader(SinkFrontEnd frontEnd, StampKeys keys) {
        this.frontEnd = frontEnd;
        this.keys = keys;
    }

    /**
     * @return empty for records that are not changes, or that the scope leaves out
     * @throws MalformedRecordException for a record peer mode cannot read, {@link dev.tideline.event.RefusedRecordException}
     *                                  for one it must not apply (its subclass {@link UnauthenticRecordException}: no
     *                                  valid MAC)
     */
    Optional<PeerChange> read(SinkRecord record) {
        if (record.value() == null) {
            return Optional.empty(); // a Kafka tombstone for compaction: the delete record before it carries the change
        }
        if (!(frontEnd.read(record) instanceof SinkFrontEnd.Routed routed)) {
            return Optional.empty();
        }
        SinkChange change = routed.change().change();
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
        if (!change.isDelete()) {
            content = ContentHash.of(change.document());
            PeerStamp stamp = PeerStamp.read(change.document());
            if (stamp == null || stamp.mac() == null) {
                throw notSigned(cluster, version, null);
            }
            if (!stamp.hash().equals(content) || !stamp.version().equals(version)
                    || !stamp.authentic(keys, cluster, change.sourceNs(), change.id())) {
                throw notSigned(cluster, version, stamp.mac());
            }
        } else {
            Mac128 mac = Mac128.parse(header(record, PeerHeaders.MAC));
            if (mac == null || !keys.verify(mac, new StampKeys.Bound(cluster, change.sourceNs().fullName(), change.id(), version,
                    null, base))) {
                throw notSigned(cluster, version, mac);
            }
        }
        BsonTimestamp sourceTime = change.version() != null && change.version().isTimestamp() ? change.version().asTimestamp() : null;
        return Optional.of(new PeerChange(record, routed.change().destination(), change.id(),
                new Incoming(origin, cluster, version, base, content, sourceTime), change.document(),
                header(record, EventHeaders.TENANT), sourceTime));
    }

    /**
     * The resnapshot marker of a record {@link #read} found no change in (read by the sink's own marker reader), with
     * the cluster whose source sent it ({@code tl.cluster}, null when absent).
     *
     * @throws MalformedRecordException for a marker with a missing or bad header, {@link dev.tideline.event.RefusedRecordException}
     *                                  for one whose epoch is too far ahead
     */
    Optional<Marker> marker(SinkRecord record) {
        Optional<MarkerReader.Routed> routed = frontEnd.markers().read(record);
        routed.ifPresent(m -> frontEnd.authenticate(record)); // read() returns before it for a marker without a value
        return routed.map(m -> new Marker(m, header(record, PeerHeaders.CLUSTER)));
    }

    /** A marker and the cluster whose source sent it (null when the record does not say). */
    record Marker(MarkerReader.Routed routed, String cluster) {
    }

    private UnauthenticRecordException notSigned(String cluster, Version version, Mac128 mac) {
        return new UnauthenticRecordException("refused: the record of version " + version + " said to be emitted by " + cluster
                + (mac == null ? " carries no MAC (no signed '_tl' stamp, no " + PeerHeaders.MAC + " header)"
                : " carries a MAC (key " + mac.keyId() + ") that does not verify with this link's peer.stamp.key (key "
                + keys.keyId() + ") or its previous key, for this cluster, namespace, _id, version and content")
                + ": never applied. A record made by a producer outside the link, or changed on its way, never verifies; "
                + "if the link's connectors disagree on peer.stamp.key, set the same key on all of them", mac == null);
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
