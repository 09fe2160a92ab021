package dev.tideline.fanout.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.channel.ResumePoint;
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
        assertThat(((SubscriptionRequest.Accepted) d).resume()).isEmpty();
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
    void readsTheResumeCursorPerChannelInOrder() {
        SubscriptionRequest.Accepted a = (SubscriptionRequest.Accepted) decide(
                "/sse?channel=shop.orders.acme&channel=shop.users.acme&token=" + token, "e1:7,3");

        assertThat(a.resume()).isEqualTo(Map.of(
                new ChannelName("shop", "orders", "acme"), ResumePoint.after("e1", 7),
                new ChannelName("shop", "users", "acme"), ResumePoint.after("e1", 3)));
        SubscriptionRequest.Accepted query = (SubscriptionRequest.Accepted) decide(
                "/sse?channel=shop.orders.acme&lastEventId=e2:9&token=" + token, "e1:7");
        assertThat(query.resume().values()).containsExactly(ResumePoint.after("e2", 9));
        SubscriptionRequest.Accepted garbage = (SubscriptionRequest.Accepted) decide(
                "/sse?channel=shop.orders.acme&token=" + token, "nonsense");
        assertThat(garbage.resume().values()).containsExactly(ResumePoint.after("", -1));
        SubscriptionRequest.Accepted earliest = (SubscriptionRequest.Accepted) decide(
                "/sse?channel=shop.orders.acme&from=earliest&token=" + token, null);
        assertThat(earliest.resume().values()).containsExactly(ResumePoint.earliest());
    }
}
