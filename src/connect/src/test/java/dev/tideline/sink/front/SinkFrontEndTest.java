package dev.tideline.sink.front;

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
import dev.tideline.sign.KeyRing;
import dev.tideline.sign.RecordSignature;
import dev.tideline.sink.config.SinkConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

/** The checks every record passes, in order, before the sink or the peer sink acts on it. */
class SinkFrontEndTest {
    private static final String KEY = "the record signing key of the deployment";
    private static final Namespace NS = new Namespace("shop", "orders");

    private static SinkFrontEnd frontEnd(Map<String, String> extra) {
        Map<String, String> props = new HashMap<>(Map.of("mongodb.uri", "mongodb://127.0.0.1:1"));
        props.putAll(extra);
        return SinkFrontEnd.of(new SinkConfig(props), SinkFrontEnd.Documents.RAW);
    }

    private static SinkRecord change(Namespace ns, int id, String pad) {
        ChangeEvent e = new ChangeEvent(Op.INSERT, ns, new BsonInt32(id), new BsonDocument("_id", new BsonInt32(id))
                .append("pad", new BsonString(pad)), new BsonTimestamp(1_700_000_000, 1), 0, null);
        org.apache.kafka.connect.header.Headers h = new ConnectHeaders().addString(EventHeaders.KIND, EventHeaders.KIND_CHANGE)
                .addString(EventHeaders.NAMESPACE, ns.fullName());
        return new SinkRecord("tl." + ns.fullName(), 0, null, EnvelopeCodec.toKey(e.id(), ValueFormat.BSON), null,
                EnvelopeCodec.toValue(e, ValueFormat.BSON), 0, null, null, h);
    }

    private static SinkRecord signed(SinkRecord r, String key) {
        new RecordSignature(new KeyRing(key, null, "tideline-record-key-id")).sign(r);
        return r;
    }

    @Test
    void withoutASigningKeyAChangeIsDecodedAndRouted() {
        assertThat(frontEnd(Map.of()).read(change(NS, 1, "x"))).isInstanceOfSatisfying(SinkFrontEnd.Routed.class,
                r -> assertThat(r.change().destination()).isEqualTo(NS));
    }

    @Test
    void withASigningKeyOnlySignedRecordsPassAndUnsignedOnesAreRefusedBeforeDecoding() {
        SinkFrontEnd verifying = frontEnd(Map.of("record.signing.key", KEY));
        assertThat(verifying.read(signed(change(NS, 1, "x"), KEY))).isInstanceOf(SinkFrontEnd.Routed.class);
        assertThatThrownBy(() -> verifying.read(change(NS, 1, "x"))).isInstanceOf(RefusedRecordException.class)
                .hasMessageContaining("no tl.sig header");
        assertThatThrownBy(() -> verifying.read(signed(change(NS, 1, "x"), "another deployment's key, 32 characters")))
                .isInstanceOf(RefusedRecordException.class).hasMessageContaining("names no key");
        SinkRecord garbage = new SinkRecord("tl.shop.orders", 0, null, null, null, new byte[] {1, 2, 3}, 0);
        assertThatThrownBy(() -> verifying.read(garbage)).as("refused as unsigned, never read")
                .isInstanceOf(RefusedRecordException.class).hasMessageContaining("no tl.sig header");
        assertThatThrownBy(() -> frontEnd(Map.of()).read(garbage)).isInstanceOf(MalformedRecordException.class)
                .isNotInstanceOf(RefusedRecordException.class);
    }

    @Test
    void theSizeIsCheckedBeforeTheSignatureWalksTheRecord() {
        SinkFrontEnd small = frontEnd(Map.of("record.signing.key", KEY, "record.max.bytes", "1024"));
        assertThatThrownBy(() -> small.read(change(NS, 1, "p".repeat(4_000)))).isInstanceOf(RefusedRecordException.class)
                .hasMessageContaining("record.max.bytes");
    }

    @Test
    void aSignedRecordStillObeysTheNamespacePolicy() {
        SinkFrontEnd allowShop = frontEnd(Map.of("record.signing.key", KEY, "database.allow", "shop"));
        assertThatThrownBy(() -> allowShop.read(signed(change(new Namespace("payroll", "salaries"), 1, "x"), KEY)))
                .isInstanceOf(RefusedRecordException.class).hasMessageContaining("database.allow");
    }

    @Test
    void failuresCarryTheReasonOperatorsSee() {
        SinkRecord r = change(NS, 1, "x");
        assertThat(SinkFrontEnd.failure(r, new MalformedRecordException("bad")).message()).endsWith("malformed record: bad");
        assertThat(SinkFrontEnd.failure(r, new RefusedRecordException("refused: x")).message()).endsWith(": refused: x");
    }
}
