package dev.tideline.sandbox;

import dev.tideline.fanout.FanoutGateway;
import dev.tideline.fanout.config.GatewaySettings;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The realtime fanout gateway, started from config/fanout-gateway.properties (the file `./gateway`
 * reads) against the sandbox's broker, with a demo page URL for one tenant printed at start.
 */
final class GatewayPart implements Sandbox.Part, AutoCloseable {
    private final FanoutGateway gateway;

    private GatewayPart(FanoutGateway gateway) {
        this.gateway = gateway;
    }

    /**
     * @param channels the tenant's channels the printed demo URL subscribes to, {@code <db>.<coll>.<tenant>}
     */
    static GatewayPart start(Path propertiesFile, String bootstrapServers, String tenant, List<String> channels)
            throws IOException, InterruptedException {
        Properties file = new Properties();
        try (Reader r = Files.newBufferedReader(propertiesFile)) {
            file.load(r);
        }
        Map<String, String> settings = new HashMap<>();
        file.stringPropertyNames().forEach(k -> settings.put(k, file.getProperty(k)));
        settings.put(GatewaySettings.KAFKA_BOOTSTRAP, bootstrapServers);
        // the file ships a placeholder the gateway refuses: the sandbox signs with a secret of its own run
        String secret = System.getenv("FANOUT_HMAC_SECRET");
        if (secret == null || secret.isEmpty()) {
            byte[] random = new byte[36];
            new java.security.SecureRandom().nextBytes(random);
            secret = java.util.Base64.getEncoder().encodeToString(random);
        }
        settings.put(GatewaySettings.AUTH_SECRET, secret);
        FanoutGateway gateway = FanoutGateway.start(settings);
        String token = gateway.issueToken(tenant, List.of("*.*." + tenant), Duration.ofHours(8));
        System.out.println("Fanout gateway at " + gateway.baseUrl() + "; live changes of tenant " + tenant + ": "
                + gateway.baseUrl() + "/demo.html#token=" + token + "&channels=" + String.join(",", channels));
        return new GatewayPart(gateway);
    }

    @Override
    public String status() {
        var stats = gateway.stats();
        return "gateway published " + stats.changesPublished.sum() + " delivered " + stats.deliveries.sum()
                + " to " + stats.openConnections.get() + " subscriber(s)";
    }

    @Override
    public boolean healthy() {
        return gateway.stats().changesPublished.sum() > 0;
    }

    @Override
    public void close() {
        gateway.close();
    }
}
