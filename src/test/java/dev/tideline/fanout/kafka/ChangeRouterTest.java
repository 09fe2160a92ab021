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
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class ChangeRouterTest {
    private static final ObjectId OID = new ObjectId("65f000000000000000000001");
    private static final ChangeEvent INSERT = new ChangeEvent(Op.INSERT, new Namespace("shop", "orders"), new BsonObjectId(OID),
            new BsonDocument("_id", new BsonObjectId(OID)).append("n", new BsonInt32(7)), null, 1_700_000_000_000L, null);

    private static Map<String, String> headers(String tenant) {
        Map<String, String> h = new HashMap<>();
        h.put(EventHeaders.KIND, EventHeaders.KIND_CHANGE);
        h.put(EventHeaders.TENANT, tenant);
        return h;
    }

    @Test
    void routesABsonChangeToItsTenantsChannel() {
        ChangeRouter.Route route = new ChangeRouter(ValueFormat.BSON)
                .route(EnvelopeCodec.toBytes(EnvelopeCodec.toBson(INSERT)), headers("acme")::get);

        assertThat(route).isInstanceOf(ChangeRouter.Routed.class);
        ChangeRouter.Routed r = (ChangeRouter.Routed) route;
        assertThat(r.channel()).isEqualTo(new ChannelName("shop", "orders", "acme"));
        assertThat(BsonDocument.parse(r.changeJson())).isEqualTo(BsonDocument.parse(
                "{\"op\":\"insert\",\"db\":\"shop\",\"coll\":\"orders\",\"id\":{\"$oid\":\"" + OID.toHexString() + "\"},"
                        + "\"document\":{\"_id\":{\"$oid\":\"" + OID.toHexString() + "\"},\"n\":7},"
                        + "\"wallTime\":{\"$date\":\"2023-11-14T22:13:20Z\"}}"));
    }

    @Test
    void routesTheJsonFormAsJsonConverterWritesIt() {
        String json = EnvelopeCodec.toBson(INSERT).toJson();
        ChangeRouter.Route route = new ChangeRouter(ValueFormat.JSON).route(json.getBytes(StandardCharsets.UTF_8), headers("t-1")::get);

        assertThat(((ChangeRouter.Routed) route).channel().toString()).isEqualTo("shop.orders.t-1");
    }

    @Test
    void skipsWhatHasNoTenantOrIsNotAChange() {
        ChangeRouter router = new ChangeRouter(ValueFormat.BSON);
        byte[] value = EnvelopeCodec.toBytes(EnvelopeCodec.toBson(INSERT));
        Map<String, String> heartbeat = headers("acme");
        heartbeat.put(EventHeaders.KIND, EventHeaders.KIND_HEARTBEAT);

        assertThat(reason(router.route(value, headers(null)::get))).isEqualTo("no-tenant");
        assertThat(reason(router.route(value, headers("ac.me")::get))).isEqualTo("bad-tenant");
        assertThat(reason(router.route(value, headers("*")::get))).isEqualTo("bad-tenant");
        assertThat(reason(router.route(value, heartbeat::get))).isEqualTo("not-a-change");
        assertThat(reason(router.route(null, headers("acme")::get))).isEqualTo("not-a-change");
        assertThat(reason(router.route(new byte[] {1, 2, 3}, headers("acme")::get))).isEqualTo("malformed");
    }

    private static String reason(ChangeRouter.Route r) {
        return ((ChangeRouter.Skipped) r).reason();
    }
}
