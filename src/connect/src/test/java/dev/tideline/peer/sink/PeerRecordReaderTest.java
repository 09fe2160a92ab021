package dev.tideline.peer.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.RefusedRecordException;
import dev.tideline.event.ValueFormat;
import dev.tideline.peer.ContentHash;
import dev.tideline.peer.PeerHeaders;
import dev.tideline.peer.PeerStamp;
import dev.tideline.peer.StampKeys;
import dev.tideline.peer.Version;
import dev.tideline.sink.config.SinkConfig;
import dev.tideline.sink.front.SinkFrontEnd;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/**
 * What the peer sink lets through to its decision: the sink's own front end (record.max.bytes, database.allow, the
 * namespaces no sink writes) and a stamp or delete MAC that verifies with the link's key. Everything else throws,
 * so that the task sends it to the dead letter queue.
 */
class PeerRecordReaderTest {
    static final String KEY = "the stamp key of the link, 32+ characters";
    static final StampKeys KEYS = new StampKeys(KEY, null);
    static final Namespace NS = new Namespace("app", "docs");
    static final String TOPIC = "b.app.docs";
    private static final BsonTimestamp TIME = new BsonTimestamp(1_700_000_000, 1);
    static final Version VERSION = new Version(TIME, "B");

    static PeerRecordReader reader(Map<String, String> extra) {
        Map<String, String> props = new HashMap<>(Map.of("mongodb.uri", "mongodb://127.0.0.1:1", "peer.cluster.id", "A",
                "peer.stamp.key", KEY));
        props.putAll(extra);
        return new PeerRecordReader(SinkFrontEnd.of(new SinkConfig(props), SinkFrontEnd.Documents.OBJECTS), KEYS);
    }

    /** A record as B's peer source emits it for a write of {@code doc} in {@code ns}, its stamp signed with {@code keys}. */
    static SinkRecord write(Namespace ns, int id, BsonDocument content, StampKeys keys, long offset) {
        return writeAt(ns, id, content, keys, TIME, offset);
    }

    /** {@link #write} with the source's cluster time {@code clusterTime} (the change's version in the sink). */
    static SinkRecord writeAt(Namespace ns, int id, BsonDocument content, StampKeys keys, BsonTimestamp clusterTime, long offset) {
        BsonDocument doc = new BsonDocument("_id", new BsonInt32(id));
        doc.putAll(content);
        PeerStamp stamp = new PeerStamp(VERSION, ContentHash.of(doc), null);
        BsonDocument stamped = (keys == null ? stamp : stamp.signed(keys, "B", ns, new BsonInt32(id))).applyTo(doc);
        return record(new ChangeEvent(Op.INSERT, ns, new BsonInt32(id), stamped, clusterTime, 1_700_000_000_000L, "B"), null, offset);
    }

    static SinkRecord delete(Namespace ns, int id, String mac, long offset) {
        return record(new ChangeEvent(Op.DELETE, ns, new BsonInt32(id), null, TIME, 1_700_000_000_000L, "B"), mac, offset);
    }

    static String deleteMac(Namespace ns, int id, StampKeys keys) {
        return keys.sign(new StampKeys.Bound("B", ns.fullName(), new BsonInt32(id), VERSION, null, null)).text();
    }

    private static SinkRecord record(ChangeEvent e, String mac, long offset) {
        ConnectHeaders h = new ConnectHeaders();
        h.addString(EventHeaders.KIND, EventHeaders.KIND_CHANGE);
        h.addString(EventHeaders.NAMESPACE, e.ns().fullName());
        h.addString(EventHeaders.ORIGIN, "B");
        h.addString(PeerHeaders.CLUSTER, "B");
        h.addString(PeerHeaders.VERSION, VERSION.toText());
        if (mac != null) {
            h.addString(PeerHeaders.MAC, mac);
        }
        return new SinkRecord(TOPIC, 0, null, EnvelopeCodec.toKey(e.id(), ValueFormat.BSON), null,
                EnvelopeCodec.toValue(e, ValueFormat.BSON), offset, null, null, h);
    }

    private static final BsonDocument CONTENT = new BsonDocument("w", new BsonString("B-1"));

    @Test
    void anHonestWriteAndDeleteOfThePeerAreRead() {
        PeerRecordReader reader = reader(Map.of());
        assertThat(reader.read(write(NS, 1, CONTENT, KEYS, 0))).get().satisfies(c -> {
            assertThat(c.destination).isEqualTo(NS);
            assertThat(c.incoming.version()).isEqualTo(VERSION);
        });
        assertThat(reader.read(delete(NS, 1, deleteMac(NS, 1, KEYS), 1))).get().satisfies(c -> assertThat(c.incoming.isDelete()).isTrue());
    }

    @Test
    void aWriteWithoutASignedStampIsRefusedAsMissingItsMac() {
        assertThatThrownBy(() -> reader(Map.of()).read(write(NS, 1, CONTENT, null, 0)))
                .isInstanceOfSatisfying(UnauthenticRecordException.class, e -> assertThat(e.missing()).isTrue())
                .hasMessageContaining("carries no MAC");
    }

    @Test
    void aStampSignedWithAnotherKeyOrForAnotherDocumentIsRefusedAsABadMac() {
        StampKeys other = new StampKeys("a key that is not the link's, 32 characters", null);
        assertThatThrownBy(() -> reader(Map.of()).read(write(NS, 1, CONTENT, other, 0)))
                .isInstanceOfSatisfying(UnauthenticRecordException.class, e -> assertThat(e.missing()).isFalse())
                .hasMessageContaining("does not verify");
        // a stamp made for another namespace, copied onto this one
        SinkRecord elsewhere = write(new Namespace("app", "other"), 1, CONTENT, KEYS, 0);
        BsonDocument value = EnvelopeCodec.readDocument(elsewhere.value());
        value.put("coll", new BsonString("docs"));
        SinkRecord moved = new SinkRecord(TOPIC, 0, null, elsewhere.key(), null, EnvelopeCodec.toBytes(value), 0, null, null,
                elsewhere.headers());
        assertThatThrownBy(() -> reader(Map.of()).read(moved)).isInstanceOf(UnauthenticRecordException.class);
    }

    @Test
    void aDeleteWithoutOrWithAWrongMacIsRefused() {
        assertThatThrownBy(() -> reader(Map.of()).read(delete(NS, 1, null, 0)))
                .isInstanceOfSatisfying(UnauthenticRecordException.class, e -> assertThat(e.missing()).isTrue());
        assertThatThrownBy(() -> reader(Map.of()).read(delete(NS, 1, deleteMac(NS, 2, KEYS), 0)))
                .isInstanceOfSatisfying(UnauthenticRecordException.class, e -> assertThat(e.missing()).isFalse());
        assertThatThrownBy(() -> reader(Map.of()).read(delete(NS, 1, "no-colon-here", 0)))
                .isInstanceOfSatisfying(UnauthenticRecordException.class, e -> assertThat(e.missing()).isTrue());
    }

    @Test
    void databaseAllowHoldsInPeerModeEvenForAnHonestlySignedRecord() {
        Namespace foreign = new Namespace("payroll", "docs");
        SinkRecord signed = write(foreign, 1, CONTENT, KEYS, 0);
        assertThat(reader(Map.of()).read(signed)).as("without database.allow").isPresent();
        assertThatThrownBy(() -> reader(Map.of("database.allow", "app")).read(signed))
                .isInstanceOf(RefusedRecordException.class).isNotInstanceOf(UnauthenticRecordException.class)
                .hasMessageContaining("payroll").hasMessageContaining("database.allow");
        assertThatThrownBy(() -> reader(Map.of()).read(write(new Namespace("admin", "users"), 1, CONTENT, KEYS, 0)))
                .isInstanceOf(RefusedRecordException.class).hasMessageContaining("admin");
    }

    @Test
    void recordMaxBytesHoldsInPeerModeBeforeAnythingDecodes() {
        SinkRecord large = write(NS, 1, new BsonDocument("pad", new BsonString("p".repeat(5_000))), KEYS, 0);
        assertThat(reader(Map.of()).read(large)).isPresent();
        assertThatThrownBy(() -> reader(Map.of("record.max.bytes", "2048")).read(large))
                .isInstanceOf(RefusedRecordException.class).hasMessageContaining("record.max.bytes");
    }

    @Test
    void malformedBytesThrowAMalformedRecord() {
        SinkRecord garbage = new SinkRecord(TOPIC, 0, null, null, null, new byte[] {1, 2, 3, 4, 5}, 0);
        assertThatThrownBy(() -> reader(Map.of()).read(garbage)).isInstanceOf(MalformedRecordException.class)
                .isNotInstanceOf(RefusedRecordException.class);
    }
}
