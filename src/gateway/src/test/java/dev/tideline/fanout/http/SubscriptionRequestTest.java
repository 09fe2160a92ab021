package dev.tideline.fanout.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.channel.Positions;
import dev.tideline.fanout.channel.StartPoint;
import org.apache.kafka.common.TopicPartition;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SubscriptionRequestTest {
    private static final long NOW = 1_800_000_000_000L;
    private final JwtVerifier verifier = new JwtVerifier("0123456789abcdef0123456789abcdef-test".getBytes(StandardCharsets.UTF_8), 0);
    private final String token = verifier.issue(null, "acme", List.of("shop.*.acme"), NOW / 1000 + 60);

    private SubscriptionRequest.Decision decide(String uri, String lastEventId) {
        return SubscriptionRequest.decide(new QueryStringDecoder(uri).parameters(), null, lastEventId, verifier, 4, NOW);
    }

    private String refusal(String uri) {
        SubscriptionRequest.Decision d = decide(uri, null);
        return d instanceof SubscriptionRequest.Refused r ? r.status() + ":" + r.reason() : "accepted";
    }

    @Test
    void acceptsChannelsTheTokenGrants() {
        SubscriptionRequest.Decision d = decide("/sse?channel=shop.orders.acme&channel=shop.users.acme&token=" + token, null);

        assertThat(d).isInstanceOf(SubscriptionRequest.Accepted.class);
        assertThat(((SubscriptionRequest.Accepted) d).channels()).extracting(ChannelName::toString)
                .containsExactly("shop.orders.acme", "shop.users.acme");
        assertThat(((SubscriptionRequest.Accepted) d).starts()).containsExactly(StartPoint.LIVE, StartPoint.LIVE);
        assertThat(((SubscriptionRequest.Accepted) d).subscribedAtMillis()).isEqualTo(NOW);
    }

    @Test
    void takesTheTokenFromTheAuthorizationHeaderToo() {
        SubscriptionRequest.Decision d = SubscriptionRequest.decide(new QueryStringDecoder("/sse?channel=shop.orders.acme").parameters(),
                "Bearer " + token, null, verifier, 4, NOW);

        assertThat(d).isInstanceOf(SubscriptionRequest.Accepted.class);
    }

    @Test
    void refusesChannelTricks() {
        String t = "&token=" + token;
        assertThat(refusal("/sse?channel=shop.orders.evil" + t)).isEqualTo("403:forbidden-channel");
        assertThat(refusal("/sse?channel=shop.orders.acme.evil" + t)).isEqualTo("403:forbidden-channel");
        assertThat(refusal("/sse?channel=crm.orders.acme" + t)).isEqualTo("403:forbidden-channel");
        assertThat(refusal("/sse?channel=shop.orders.acme%2Eevil" + t)).isEqualTo("403:forbidden-channel"); // decoded once: tenant evil
        assertThat(refusal("/sse?channel=shop.orders.acme%252Eevil" + t)).isEqualTo("400:bad-channel");
        assertThat(refusal("/sse?channel=shop.*.acme" + t)).isEqualTo("400:bad-channel");
        assertThat(refusal("/sse?channel=shop.orders.*" + t)).isEqualTo("400:bad-channel");
        assertThat(refusal("/sse?channel=shop.orders.acme,shop.orders.evil" + t)).isEqualTo("403:forbidden-channel");
        assertThat(refusal("/sse?channel=shop.orders.acme%00" + t)).isEqualTo("400:bad-channel");
        assertThat(refusal("/sse?channel=shop..acme" + t)).isEqualTo("400:bad-channel");
        assertThat(refusal("/sse?channel=" + t)).isEqualTo("400:bad-channel");
        assertThat(refusal("/sse?" + t)).isEqualTo("400:no-channel");
        assertThat(refusal("/sse?channel=shop.a.acme,shop.b.acme,shop.c.acme,shop.d.acme,shop.e.acme" + t)).isEqualTo("400:too-many-channels");
        assertThat(refusal("/sse?channel=shop.a.acme&channel=shop.a.acme" + t)).isEqualTo("400:duplicate-channel");
    }

    @Test
    void refusesBadTokensWith401() {
        assertThat(refusal("/sse?channel=shop.orders.acme")).isEqualTo("401:missing");
        assertThat(refusal("/sse?channel=shop.orders.acme&token=" + verifier.issue(null, "acme", List.of("shop.*.acme"), NOW / 1000 - 1)))
                .isEqualTo("401:expired");
    }

    @Test
    void readsTheResumeCursorPerChannel() {
        String cursor = "1|1700000000000|shop.users.acme=t.shop.users@3|shop.orders.acme=t.shop.orders@7.9";
        SubscriptionRequest.Accepted a = (SubscriptionRequest.Accepted) decide(
                "/sse?channel=shop.orders.acme&channel=shop.users.acme&channel=shop.new.acme&token=" + token, cursor);

        assertThat(a.starts()).containsExactly(
                new StartPoint.After(new Positions(Map.of(new TopicPartition("t.shop.orders", 0), 7L,
                        new TopicPartition("t.shop.orders", 1), 9L)), 1_700_000_000_000L),
                new StartPoint.After(new Positions(Map.of(new TopicPartition("t.shop.users", 0), 3L)), 1_700_000_000_000L),
                StartPoint.LIVE);
        assertThat(a.subscribedAtMillis()).isEqualTo(1_700_000_000_000L);
        SubscriptionRequest.Accepted query = (SubscriptionRequest.Accepted) decide(
                "/sse?channel=shop.orders.acme&lastEventId=" + java.net.URLEncoder.encode("1|5|shop.orders.acme=t@2",
                        StandardCharsets.UTF_8) + "&token=" + token, cursor);
        assertThat(query.starts()).containsExactly(new StartPoint.After(new Positions(Map.of(new TopicPartition("t", 0), 2L)), 5));
        SubscriptionRequest.Accepted garbage = (SubscriptionRequest.Accepted) decide(
                "/sse?channel=shop.orders.acme&token=" + token, "e1:7");
        assertThat(garbage.starts()).containsExactly(StartPoint.BAD_CURSOR);
        SubscriptionRequest.Accepted earliest = (SubscriptionRequest.Accepted) decide(
                "/sse?channel=shop.orders.acme&from=earliest&token=" + token, null);
        assertThat(earliest.starts()).containsExactly(StartPoint.EARLIEST);
        assertThat(earliest.subscribedAtMillis()).isZero();
    }
}
