package dev.tideline.fanout;

import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.config.GatewaySettings;
import dev.tideline.fanout.http.HttpGateway;
import dev.tideline.fanout.kafka.ChangeConsumer;
import dev.tideline.fanout.kafka.ChangeRouter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The realtime fanout gateway, embeddable: {@link #start(GatewaySettings)} reads the change topics
 * with one consumer and serves subscribers over SSE and WebSocket until {@link #close()}.
 */
public final class FanoutGateway implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FanoutGateway.class);

    private final GatewaySettings settings;
    private final GatewayStats stats = new GatewayStats();
    private final ChannelHub hub;
    private final JwtVerifier verifier;
    private final ChangeConsumer consumer;
    private final HttpGateway http;

    private FanoutGateway(GatewaySettings settings) throws InterruptedException {
        this.settings = settings;
        byte[] epochBytes = new byte[6];
        new SecureRandom().nextBytes(epochBytes);
        this.hub = new ChannelHub(HexFormat.of().formatHex(epochBytes), settings.historySize(), settings.historyAgeMs(),
                System::currentTimeMillis);
        this.verifier = new JwtVerifier(settings.secret(), settings.leewayMs());
        this.consumer = new ChangeConsumer(settings.bootstrapServers(), settings.topics(), settings.topicsRefreshMs(),
                settings.historyAgeMs(), new ChangeRouter(settings.valueFormat()), hub, stats);
        consumer.start();
        try {
            this.http = new HttpGateway(settings.bindAddress(), settings.httpPort(), settings.sendBufferBytes(), hub, verifier,
                    stats, new HttpGateway.Budgets(settings.queueMaxBytes(), settings.queueTotalMaxBytes()),
                    settings.maxChannels(), this::statsJson);
        } catch (RuntimeException | InterruptedException e) {
            consumer.close();
            throw e;
        }
        LOG.info("fanout gateway listening on http://{}:{} (epoch {}), reading topics matching {} from {}",
                settings.bindAddress(), http.port(), hub.epoch(), settings.topics(), settings.bootstrapServers());
    }

    public static FanoutGateway start(GatewaySettings settings) throws InterruptedException {
        return new FanoutGateway(settings);
    }

    public static FanoutGateway start(Map<String, String> properties) throws InterruptedException {
        return start(new GatewaySettings(properties));
    }

    /** Waits for the consumer's first topic scan: subscribers after it see every later change. */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        return consumer.awaitFirstAssignment(timeout);
    }

    public int port() {
        return http.port();
    }

    public String baseUrl() {
        return "http://" + settings.bindAddress() + ":" + port();
    }

    public String epoch() {
        return hub.epoch();
    }

    public GatewayStats stats() {
        return stats;
    }

    /** A token signed with this gateway's secret. */
    public String issueToken(String tenant, java.util.List<String> channels, Duration ttl) {
        return verifier.issue(null, tenant, channels, (System.currentTimeMillis() + ttl.toMillis()) / 1000);
    }

    String statsJson() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        double cpu = -1;
        long cpuNanos = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            cpu = os.getProcessCpuLoad();
            cpuNanos = os.getProcessCpuTime();
        }
        return "{\"epoch\":\"" + hub.epoch() + "\",\"connections\":" + stats.openConnections.get()
                + ",\"channels\":" + hub.channelCount()
                + ",\"recordsRead\":" + stats.recordsRead.sum() + ",\"changesPublished\":" + stats.changesPublished.sum()
                + ",\"deliveries\":" + stats.deliveries.sum()
                + ",\"skipped\":" + json(stats.skippedByReason()) + ",\"refused\":" + json(stats.refusedByReason())
                + ",\"disconnects\":" + json(stats.disconnectsByReason())
                + ",\"heapUsedBytes\":" + memory.getHeapMemoryUsage().getUsed()
                + ",\"processCpuLoad\":" + cpu + ",\"processCpuNanos\":" + cpuNanos + "}";
    }

    private static String json(Map<String, Long> m) {
        StringBuilder sb = new StringBuilder("{");
        m.forEach((k, v) -> sb.append(sb.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
        return sb.append('}').toString();
    }

    @Override
    public void close() {
        http.close();
        consumer.close();
    }
}
