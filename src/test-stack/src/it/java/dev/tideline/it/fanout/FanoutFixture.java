package dev.tideline.it.fanout;

import dev.tideline.fanout.FanoutGateway;
import dev.tideline.fanout.config.AuthSettings;
import dev.tideline.fanout.config.GatewaySettings;
import dev.tideline.fanout.config.HttpSettings;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import dev.tideline.it.support.Waits;

/** An embedded gateway on the shared stack's broker, reading one test's topics. */
public final class FanoutFixture implements AutoCloseable {
    public static final String SECRET = "fanout-it-secret-fanout-it-secret-0123456789";
    /** The operator key (/stats, /health's details), another than the subscriber key. */
    public static final String ADMIN_SECRET = "fanout-it-operator-key-fanout-it-operator-key";

    private final FanoutGateway gateway;

    private FanoutFixture(FanoutGateway gateway) {
        this.gateway = gateway;
    }

    /** Settings for a gateway reading {@code <prefix>.*} (json form) on a free port; {@code overrides} win. */
    public static Map<String, String> settings(String bootstrap, String topicPrefix, Map<String, String> overrides) {
        Map<String, String> s = new HashMap<>();
        s.put(GatewaySettings.KAFKA_BOOTSTRAP, bootstrap);
        s.put(GatewaySettings.TOPICS_REGEX, java.util.regex.Pattern.quote(topicPrefix + ".") + ".*");
        s.put(GatewaySettings.TOPICS_REFRESH_MS, "300");
        s.put(GatewaySettings.HTTP_PORT, "0");
        s.put(GatewaySettings.AUTH_SECRET, SECRET);
        s.put(AuthSettings.ADMIN_SECRET, ADMIN_SECRET);
        // every test client comes from 127.0.0.1
        s.put(HttpSettings.MAX_CONNECTIONS_PER_ADDRESS, "5000");
        s.putAll(overrides);
        return s;
    }

    public static FanoutFixture start(String bootstrap, String topicPrefix, Map<String, String> overrides) throws InterruptedException {
        FanoutGateway g = FanoutGateway.start(settings(bootstrap, topicPrefix, overrides));
        if (!g.awaitReady(Duration.ofSeconds(60))) {
            g.close();
            throw new IllegalStateException("the gateway's consumer did not list the topics within 60 s");
        }
        return new FanoutFixture(g);
    }

    public FanoutGateway gateway() {
        return gateway;
    }

    public String baseUrl() {
        return gateway.baseUrl();
    }

    public String token(String tenant, String... patterns) {
        return gateway.issueToken(tenant, List.of(patterns), Duration.ofMinutes(10));
    }

    /** {@code /sse?channel=a&channel=b&token=t} */
    public static String ssePath(String token, String... channels) {
        StringBuilder sb = new StringBuilder("/sse?token=").append(token);
        for (String c : channels) {
            sb.append("&channel=").append(c);
        }
        return sb.toString();
    }

    public SseClient subscribe(String token, String... channels) {
        SseClient c = SseClient.open(baseUrl(), ssePath(token, channels), Map.of());
        if (c.status() != 200) {
            throw new AssertionError("subscription refused: " + c.status() + " " + c.errorBody());
        }
        c.await("subscribed", channels.length, Duration.ofSeconds(30));
        return c;
    }

    /** Waits until the gateway has published at least {@code n} changes in total. */
    public void awaitPublished(long n, Duration timeout) {
        Waits.until(timeout, Duration.ofMillis(50), () -> gateway.stats().changesPublished.sum(), published -> published >= n,
                published -> "the gateway published " + published + " changes within " + timeout + ", expected " + n);
    }

    @Override
    public void close() {
        gateway.close();
    }
}
