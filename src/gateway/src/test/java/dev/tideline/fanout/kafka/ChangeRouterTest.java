package dev.tideline.fanout.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.channel.ChannelName;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class ChangeRouterTest {
    private static final ObjectId OID = new ObjectId("65f000000000000000000001");
    private static final Namespace NS = new Namespace("shop", "orders");
    private static final ChangeEvent INSERT = new ChangeEvent(Op.INSERT, NS, new BsonObjectId(OID),
            new BsonDocument("_id", new BsonObjectId(OID)).append("n", new BsonInt32(7)), null, 1_700_000_000_000L, null);

    private static Map<String, String> headers(String tenant) {
        Map<String, String> h = new HashMap<>();
        h.put(EventHeaders.KIND, EventHeaders.KIND_CHANGE);
        h.put(EventHeaders.TENANT, tenant);
        return h;
    }

    private static ChangeRouter router(ValueFormat f) {
        return new ChangeRouter(f, 110, new DocumentMemory(1000));
    }

    private static byte[] bson(ChangeEvent e) {
        return EnvelopeCodec.toBytes(EnvelopeCodec.toBson(e));
    }

    private static ChangeEvent change(Op op, int n, long clusterSeconds) {
        return new ChangeEvent(op, NS, new BsonInt32(1), op == Op.DELETE ? null : new BsonDocument("_id", new BsonInt32(1))
                .append("n", new BsonInt32(n)).append("tenant", new BsonString("acme")),
                new BsonTimestamp((int) clusterSeconds, 1), 1_700_000_000_000L, null);
    }

    @Test
    void routesABsonChangeToItsTenantsChannel() {
        ChangeRouter.Route route = router(ValueFormat.BSON).route(bson(INSERT), headers("acme")::get);

        assertThat(route).isInstanceOf(ChangeRouter.Routed.class);
        ChangeRouter.Routed r = (ChangeRouter.Routed) route;
        assertThat(r.channel()).isEqualTo(new ChannelName("shop", "orders", "acme"));
        assertThat(r.tenantRemembered()).isFalse();
        assertThat(BsonDocument.parse(r.changeJson())).isEqualTo(BsonDocument.parse(
                "{\"op\":\"insert\",\"db\":\"shop\",\"coll\":\"orders\",\"id\":{\"$oid\":\"" + OID.toHexString() + "\"},"
                        + "\"document\":{\"_id\":{\"$oid\":\"" + OID.toHexString() + "\"},\"n\":7},"
                        + "\"wallTime\":{\"$date\":\"2023-11-14T22:13:20Z\"}}"));
    }

    @Test
    void routesTheJsonFormAsJsonConverterWritesIt() {
        String json = EnvelopeCodec.toBson(INSERT).toJson();
        ChangeRouter.Route route = router(ValueFormat.JSON).route(json.getBytes(StandardCharsets.UTF_8), headers("t-1")::get);

        assertThat(((ChangeRouter.Routed) route).channel().toString()).isEqualTo("shop.orders.t-1");
    }

    @Test
    void aDeleteWithoutTenantGoesToTheTenantTheDocumentHadOrIsCounted() {
        ChangeRouter router = router(ValueFormat.BSON);
        router.route(bson(change(Op.INSERT, 1, 100)), headers("acme")::get);
        ChangeRouter.Route delete = router.route(bson(change(Op.DELETE, 0, 101)), headers(null)::get);

        assertThat(delete).isInstanceOf(ChangeRouter.Routed.class);
        assertThat(((ChangeRouter.Routed) delete).channel().tenant()).isEqualTo("acme");
        assertThat(((ChangeRouter.Routed) delete).tenantRemembered()).isTrue();
        assertThat(BsonDocument.parse(((ChangeRouter.Routed) delete).changeJson()).containsKey("document")).isFalse();
        // a delete with the header (pre-images) needs no memory
        ChangeRouter fresh = router(ValueFormat.BSON);
        assertThat(fresh.route(bson(change(Op.DELETE, 0, 101)), headers("acme")::get)).isInstanceOf(ChangeRouter.Routed.class);
        assertThat(reason(router(ValueFormat.BSON).route(bson(change(Op.DELETE, 0, 101)), headers(null)::get)))
                .isEqualTo(ChangeRouter.DELETE_WITHOUT_TENANT);
    }

    @Test
    void changesTheSourceSendsAgainAreDeliveredOnce() {
        ChangeRouter router = router(ValueFormat.BSON);
        byte[] v1 = bson(change(Op.INSERT, 1, 100));
        byte[] v2 = bson(change(Op.UPDATE, 2, 101));

        assertThat(router.route(v1, headers("acme")::get)).isInstanceOf(ChangeRouter.Routed.class);
        assertThat(router.route(v2, headers("acme")::get)).isInstanceOf(ChangeRouter.Routed.class);
        assertThat(reason(router.route(v1, headers("acme")::get))).isEqualTo(ChangeRouter.STALE_REPLAY);
        assertThat(reason(router.route(v2, headers("acme")::get))).isEqualTo(ChangeRouter.REPLAYED);
        assertThat(router.route(bson(change(Op.UPDATE, 3, 102)), headers("acme")::get)).isInstanceOf(ChangeRouter.Routed.class);
    }

    @Test
    void skipsWhatHasNoTenantIsNotAChangeNestsTooDeepOrContradictsItsHeaders() {
        ChangeRouter router = router(ValueFormat.BSON);
        byte[] value = bson(INSERT);
        Map<String, String> heartbeat = headers("acme");
        heartbeat.put(EventHeaders.KIND, EventHeaders.KIND_HEARTBEAT);
        Map<String, String> wrongNs = headers("acme");
        wrongNs.put(EventHeaders.NAMESPACE, "shop.users");
        String deep = "{\"v\":1,\"op\":\"insert\",\"db\":\"shop\",\"coll\":\"orders\",\"id\":1,\"document\":"
                + "{\"a\":".repeat(10_000) + "1" + "}".repeat(10_000) + ",\"wallTime\":{\"$date\":0}}";

        assertThat(reason(router.route(value, headers(null)::get))).isEqualTo("no-tenant");
        assertThat(reason(router.route(value, headers("ac.me")::get))).isEqualTo("bad-tenant");
        assertThat(reason(router.route(value, headers("*")::get))).isEqualTo("bad-tenant");
        assertThat(reason(router.route(value, heartbeat::get))).isEqualTo("not-a-change");
        assertThat(reason(router.route(null, headers("acme")::get))).isEqualTo("not-a-change");
        assertThat(reason(router.route(new byte[] {1, 2, 3}, headers("acme")::get))).isEqualTo("malformed");
        assertThat(reason(router.route(value, wrongNs::get))).isEqualTo("ns-mismatch");
        assertThat(reason(router(ValueFormat.JSON).route(deep.getBytes(StandardCharsets.UTF_8), headers("acme")::get)))
                .isEqualTo("too-deep");
    }

    @Test
    void aReaderCanTellARecordsChannelFromItsHeaders() {
        Map<String, String> h = headers("acme");
        h.put(EventHeaders.NAMESPACE, "shop.orders.v2");

        assertThat(ChangeRouter.channelInHeaders(h::get)).isEqualTo(Optional.of(new ChannelName("shop", "orders.v2", "acme")));
        assertThat(ChangeRouter.channelInHeaders(headers("acme")::get)).isEmpty();
    }

    private static String reason(ChangeRouter.Route r) {
        return ((ChangeRouter.Skipped) r).reason();
    }
}
