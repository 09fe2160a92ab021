package dev.tideline.fanout;

import dev.tideline.fanout.auth.JwtVerifier;
import dev.tideline.fanout.auth.TokenKeys;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ConsumerProgress;
import dev.tideline.fanout.channel.NamespaceTopics;
import dev.tideline.fanout.config.AuthSettings;
import dev.tideline.fanout.config.GatewaySettings;
import dev.tideline.fanout.config.KafkaSettings;
import dev.tideline.fanout.config.ResumeSettings;
import dev.tideline.fanout.http.ConnectionLimiter;
import dev.tideline.fanout.http.HttpGateway;
import dev.tideline.fanout.kafka.ChangeConsumer;
import dev.tideline.fanout.kafka.ChangeRouter;
import dev.tideline.fanout.kafka.ConsumerHealth;
import dev.tideline.fanout.kafka.DocumentMemory;
import dev.tideline.fanout.quota.TenantQuotas;
import dev.tideline.fanout.resume.CatchUpExecutor;
import dev.tideline.fanout.stats.GatewayStats;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The realtime fanout gateway, embeddable: {@link #start(GatewaySettings)} reads the change topics
 * with one consumer and serves subscribers over SSE and WebSocket until {@link #close()}. It keeps
 * no state of its own beyond caches: clients' positions are Kafka positions, so gateways behind one
 * address (or one restarted) resume each other's clients.
 */
public final class FanoutGateway implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FanoutGateway.class);

    private final GatewaySettings settings;
    private final GatewayStats stats = new GatewayStats();
    private final ChannelHub hub;
    private final TokenKeys keys;
    private final DocumentMemory memory;
    private final ChangeConsumer consumer;
    private final CatchUpExecutor catchUp;
    private final HttpGateway http;
    private final GatewayMetrics metrics;

    private FanoutGateway(GatewaySettings settings) throws InterruptedException {
        this.settings = settings;
        KafkaSettings kafka = settings.kafka();
        ResumeSettings resume = settings.resume();
        this.hub = new ChannelHub(resume.history(), settings.delivery().channelsMax(), resume.timeMarginMs(), new ConsumerProgress(),
                new NamespaceTopics(), System::currentTimeMillis);
        AuthSettings auth = settings.auth();
        byte[] adminKey = auth.adminSecret();
        this.keys = new TokenKeys(new JwtVerifier(auth.secret(), auth.leewayMs(), auth.maxLifetimeMs()),
                adminKey == null ? null : new JwtVerifier(adminKey, auth.leewayMs(), auth.maxLifetimeMs()));
        this.memory = new DocumentMemory(resume.memoryEntries());
        Map<String, Object> client = new HashMap<>(kafka.clientOverrides());
        client.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        this.consumer = new ChangeConsumer(client, kafka.topics(), kafka.refreshMs(), resume.history().maxAgeMillis(),
                new ChangeRouter(kafka.valueFormat(), kafka.maxDepth(), memory), hub, stats);
        CatchUpExecutor executor = null;
        HttpGateway server = null;
        TenantQuotas quotas = new TenantQuotas(settings.tenants().limits());
        try {
            executor = new CatchUpExecutor(resume.kafkaReaders(), resume.queueMax(),
                    () -> new KafkaConsumer<>(ChangeConsumer.consumerProps(client, "tideline-fanout-reader"),
                            new ByteArrayDeserializer(), new ByteArrayDeserializer()),
                    new CatchUpExecutor.KafkaRangeReaderSettings(kafka.valueFormat(), kafka.maxDepth(),
                            Math.max(1000, resume.lookbackRecords()), resume.lookbackRecords()), stats);
            consumer.start();
            ConsumerHealth health = consumer.health();
            server = new HttpGateway(settings.http().bindAddress(), settings.http().port(), settings.delivery().sendBufferBytes(),
                    new HttpGateway.Admission(new ConnectionLimiter(settings.http().maxConnections(),
                            settings.http().maxConnectionsPerAddress()), settings.http().requestTimeoutMs()),
                    new HttpGateway.Budgets(settings.delivery().queueMaxBytes(), settings.delivery().queueTotalMaxBytes(),
                            settings.delivery().flushWindowMs()),
                    settings.delivery().maxChannelsPerSubscription(),
                    new HttpGateway.Origins(settings.http().allowedOrigins(), settings.http().publicOrigins()),
                    new HttpGateway.Services(hub, keys, quotas, stats, executor, this::statsJson,
                            new HttpGateway.Health(health::canDeliver, internals -> health.json(System.currentTimeMillis(), internals))));
        } catch (RuntimeException | InterruptedException e) {
            consumer.close();
            if (executor != null) {
                executor.close();
            }
            throw e;
        }
        this.catchUp = executor;
        this.http = server;
        this.metrics = new GatewayMetrics(server.port(), stats, hub, consumer.health(), quotas, executor::queued);
        LOG.info("fanout gateway listening on http://{}:{}, reading topics matching {} from {}",
                settings.http().bindAddress(), http.port(), kafka.topics(), kafka.bootstrapServers());
    }

    public static FanoutGateway start(GatewaySettings settings) throws InterruptedException {
        return new FanoutGateway(settings);
    }

    public static FanoutGateway start(Map<String, String> properties) throws InterruptedException {
        return start(new GatewaySettings(properties));
    }

    /** Waits for the consumer's first topic scan: subscribers after it see every later change. */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        return consumer.awaitFirstAssignment(timeout) && hub.progress().ready();
    }

    public int port() {
        return http.port();
    }

    public String baseUrl() {
        return "http://" + settings.http().bindAddress() + ":" + port();
    }

    public GatewayStats stats() {
        return stats;
    }

    public ConsumerHealth health() {
        return consumer.health();
    }

    /** A subscriber token signed with this gateway's secret. */
    public String issueToken(String tenant, List<String> channels, Duration ttl) {
        return keys.subscribers().issue(null, tenant, channels, (System.currentTimeMillis() + ttl.toMillis()) / 1000);
    }

    /** An operator token (for /stats) signed with this gateway's operator key; fails without one. */
    public String issueAdminToken(Duration ttl) {
        return keys.issueOperator((System.currentTimeMillis() + ttl.toMillis()) / 1000);
    }

    String statsJson() {
        MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
        double cpu = -1;
        long cpuNanos = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            cpu = os.getProcessCpuLoad();
            cpuNanos = os.getProcessCpuTime();
        }
        return "{\"connections\":" + stats.openConnections.get() + ",\"channels\":" + hub.channelCount()
                + ",\"historyBytes\":" + hub.historyBytes() + ",\"channelsEvicted\":" + hub.evictedChannels()
                + ",\"droppedForChannelCap\":" + hub.droppedForCap() + ",\"documentsRemembered\":" + memory.size()
                + ",\"catchUpsQueued\":" + catchUp.queued()
                + ",\"recordsRead\":" + stats.recordsRead.sum() + ",\"changesPublished\":" + stats.changesPublished.sum()
                + ",\"deliveries\":" + stats.deliveries.sum() + ",\"deletesRoutedByMemory\":" + stats.deletesRoutedByMemory.sum()
                + ",\"skipped\":" + json(stats.skippedByReason()) + ",\"refused\":" + json(stats.refusedByReason())
                + ",\"disconnects\":" + json(stats.disconnectsByReason()) + ",\"resumes\":" + json(stats.resumesByKind()) + ",\"readBacks\":" + json(stats.readBacksByOutcome())
                + ",\"health\":" + consumer.health().json(System.currentTimeMillis())
                + ",\"heapUsedBytes\":" + mem.getHeapMemoryUsage().getUsed()
                + ",\"processCpuLoad\":" + cpu + ",\"processCpuNanos\":" + cpuNanos + "}";
    }

    private static String json(Map<String, Long> m) {
        StringBuilder sb = new StringBuilder("{");
        m.forEach((k, v) -> sb.append(sb.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
        return sb.append('}').toString();
    }

    @Override
    public void close() {
        metrics.close();
        http.close();
        catchUp.close();
        consumer.close();
    }
}
