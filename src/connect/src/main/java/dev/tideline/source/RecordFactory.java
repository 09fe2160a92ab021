package dev.tideline.source;

import dev.tideline.bson.DottedPath;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.ExtendedJson;
import dev.tideline.event.Namespace;
import dev.tideline.record.RecordForm;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.event.ValueFormat;
import dev.tideline.peer.PeerHeaders;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import dev.tideline.source.capture.TxnOpIndex;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Turns what a reader captured into Kafka Connect records for ONE collection: the change record (and
 * its optional tombstone), heartbeats and control records, with the headers routers need. Immutable: what
 * the records carry from one to the next (the sequence, the repairs) is the collection's {@link RecordState}.
 */
public final class RecordFactory {
    private final Namespace ns;
    private final String nsName;
    private final Map<String, Object> partition;
    private final String topic;
    private final String heartbeatTopic;
    private final String controlTopic;
    private final RecordForm form;
    private final String tenantField;
    private final boolean tombstones;
    private final String producer;
    /** Peer mode: stamps every change (null otherwise). */
    private final PeerOriginTagger peer;
    private final String clusterId;

    public RecordFactory(Namespace ns, String topic, String heartbeatTopic, String controlTopic, ValueFormat format,
                         String tenantField, boolean tombstones, String producer) {
        this(ns, SourcePartition.of(ns), topic, heartbeatTopic, controlTopic, RecordForm.of(format), tenantField, tombstones,
                producer, null);
    }

    private RecordFactory(Namespace ns, Map<String, Object> partition, String topic, String heartbeatTopic, String controlTopic,
                          RecordForm form, String tenantField, boolean tombstones, String producer, PeerOriginTagger peer) {
        this.ns = ns;
        this.nsName = ns.fullName();
        this.partition = partition;
        this.topic = topic;
        this.heartbeatTopic = heartbeatTopic;
        this.controlTopic = controlTopic;
        this.form = form;
        this.tenantField = tenantField;
        this.tombstones = tombstones;
        this.producer = producer;
        this.peer = peer;
        this.clusterId = peer == null ? null : peer.clusterId();
    }

    /**
     * The records of one chunk of a split copy ({@link CopyPlan}): the same topic and form, the chunk's
     * source partition (its own offsets); its records share the collection's sequence
     * ({@link RecordState#forChunk}). Never in peer mode (a split copy
     * is not: see {@link CollectionCopies}).
     */
    RecordFactory forChunk(Map<String, Object> chunkPartition) {
        if (peer != null) {
            throw new IllegalStateException("a copy in peer mode is not split: its records are stamped by the collection's labeler");
        }
        return new RecordFactory(ns, chunkPartition, topic, heartbeatTopic, controlTopic, form, tenantField, tombstones, producer, null);
    }

    /** The same factory in peer mode: every change gets its origin, version and stamp from the tagger (see {@link PeerOriginTagger}). */
    RecordFactory withPeerTagging(PeerOriginTagger tagger) {
        return new RecordFactory(ns, partition, topic, heartbeatTopic, controlTopic, form, tenantField, tombstones, producer, tagger);
    }

    public String topic() {
        return topic;
    }

    /** Appends the records for one captured item; {@code state} is the collection's, moved by them. */
    public void append(Captured item, RecordState state, List<SourceRecord> out) {
        if (item instanceof Captured.Change change) {
            appendChange(change, item.offset(), state, out);
            return;
        }
        if (item instanceof Captured.RepairStep step) {
            state.repair(step.progress());
        }
        Map<String, Object> offset = offsetOf(item.offset(), state);
        if (item instanceof Captured.Heartbeat || item instanceof Captured.RepairStep) {
            BsonDocument value = new BsonDocument("db", new BsonString(ns.db())).append("coll", new BsonString(ns.coll()))
                    .append("wallTime", new BsonDateTime(System.currentTimeMillis()));
            out.add(notice(offset, heartbeatTopic, value, EventHeaders.KIND_HEARTBEAT));
        } else if (item instanceof Captured.Control control) {
            BsonDocument value = new BsonDocument("type", new BsonString(control.type().wireName()))
                    .append("db", new BsonString(ns.db())).append("coll", new BsonString(ns.coll()))
                    .append("detail", new BsonString(control.detail()))
                    .append("wallTime", new BsonDateTime(System.currentTimeMillis()));
            out.add(notice(offset, controlTopic, value, EventHeaders.KIND_CONTROL));
        } else if (item instanceof Captured.Marker m) {
            appendMarker(m.marker(), offset, out);
        }
    }

    /**
     * One copy of the marker per partition of the CHANGE topic, explicitly partitioned: Kafka orders
     * records per partition only, and each partition's reader must see the marker after that partition's
     * copies. Same offset on each, so committing it several times is harmless.
     */
    private void appendMarker(ResnapshotMarker marker, Map<String, Object> offset, List<SourceRecord> out) {
        Object value = form.marker(marker.value(System.currentTimeMillis()));
        for (int p = 0; p < marker.partitions(); p++) {
            ConnectHeaders h = headers(EventHeaders.KIND_CONTROL);
            marker.headers().forEach(h::addString);
            out.add(new SourceRecord(partition, offset, topic, p, form.markerKeySchema(), form.markerKey(ns.fullName()),
                    form.markerSchema(), value, null, h));
        }
    }

    /** A record's source offset; in peer mode with the origin clock as it stands after the record. */
    private Map<String, Object> offsetOf(SourceOffset position, RecordState state) {
        Map<String, Object> offset = SourceOffset.withRepair(position.recordOffset(), state.repair());
        return peer == null ? offset : peer.withClock(offset);
    }

    private void appendChange(Captured.Change change, SourceOffset position, RecordState state, List<SourceRecord> out) {
        ChangeEvent captured = change.event();
        BsonDocument before = change.before();
        ChangeEvent e = captured;
        PeerOriginTagger.Tagged tagged = null;
        if (peer != null) {
            tagged = peer.tag(captured);
            if (tagged == null) {
                return; // the version and content of the last record of this document: nothing new to replicate
            }
            e = tagged.event();
        }
        Map<String, Object> offset = offsetOf(position, state);
        ConnectHeaders headers = headers(EventHeaders.KIND_CHANGE);
        headers.addString(EventHeaders.OP, e.op().wireName());
        // a delete carries no document: its tenant comes from the pre-image, where the collection keeps them
        String tenant = tenantOf(e.document() != null ? e.document() : before);
        if (tenant != null) {
            headers.addString(EventHeaders.TENANT, tenant);
        }
        if (e.origin() != null) {
            headers.addString(EventHeaders.ORIGIN, e.origin());
        }
        if (change.transaction() != null) {
            headers.addString(EventHeaders.TRANSACTION, change.transaction());
            TxnOpIndex.of(position.token()).ifPresent(i -> headers.addString(EventHeaders.TRANSACTION_OP, Integer.toString(i)));
        }
        if (tagged != null && tagged.version() != null) {
            headers.addString(PeerHeaders.VERSION, tagged.version().toText());
            if (tagged.base() != null) {
                headers.addString(PeerHeaders.BASE, tagged.base().toText());
            }
            if (tagged.mac() != null) {
                headers.addString(PeerHeaders.MAC, tagged.mac());
            }
        }
        headers.addString(EventHeaders.SEQ, Long.toString(state.next()));
        Object key = form.key(e.id());
        Long timestamp = e.wallTimeMillis() > 0 ? e.wallTimeMillis() : null;
        out.add(new SourceRecord(partition, offset, topic, null, form.keySchema(), key, form.valueSchema(), form.value(e),
                timestamp, headers));
        if (tombstones && e.isDelete()) {
            // compaction forgets the key; same offset, so committing it twice is harmless
            out.add(new SourceRecord(partition, offset, topic, null, form.keySchema(), key, form.valueSchema(), null, timestamp,
                    headers(EventHeaders.KIND_CHANGE).addString(EventHeaders.OP, "tombstone")));
        }
    }

    private SourceRecord notice(Map<String, Object> offset, String noticeTopic, BsonDocument value, String kind) {
        return new SourceRecord(partition, offset, noticeTopic, null, form.noticeKeySchema(), form.noticeKey(nsName),
                form.noticeSchema(), form.notice(value), null, headers(kind));
    }

    private ConnectHeaders headers(String kind) {
        ConnectHeaders h = new ConnectHeaders();
        h.addString(EventHeaders.KIND, kind);
        h.addString(EventHeaders.NAMESPACE, nsName);
        h.addString(EventHeaders.PRODUCER, producer);
        if (clusterId != null) {
            h.addString(PeerHeaders.CLUSTER, clusterId);
        }
        return h;
    }

    /** The tenant header value: the configured field (dotted path) when it holds a scalar. */
    String tenantOf(BsonDocument document) {
        if (tenantField == null || document == null) {
            return null;
        }
        BsonValue v = DottedPath.get(document, tenantField);
        if (v == null || v.isNull() || v.isDocument() || v.isArray()) {
            return null;
        }
        if (v.isString()) {
            return v.asString().getValue();
        }
        if (v.isObjectId()) {
            return v.asObjectId().getValue().toHexString();
        }
        Object java = ExtendedJson.toJava(v);
        return String.valueOf(java instanceof Map<?, ?> m ? m.values().iterator().next() : java);
    }
}
