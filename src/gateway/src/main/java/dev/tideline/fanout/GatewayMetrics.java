package dev.tideline.fanout;

import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ConsumerProgress;
import dev.tideline.fanout.delivery.DisconnectReason;
import dev.tideline.fanout.kafka.ConsumerHealth;
import dev.tideline.fanout.quota.TenantQuotas;
import java.lang.management.ManagementFactory;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.ToLongFunction;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's figures as MBeans under {@code dev.tideline} ({@code type=gateway...}, key {@code gateway=<http port>}),
 * for the Prometheus JMX exporter agent with the rules file the Connect workers use (monitoring/prometheus,
 * docs/metrics.md). Views only: the counting stays in {@link GatewayStats}, the hub, the consumer's progress and the
 * tenants' quotas. Beans whose keys come and go (tenants holding connections, topics read, reasons seen) are
 * registered by a sync once a second; counters of the known reasons exist from the start, at 0, so rates work at once.
 */
public final class GatewayMetrics implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GatewayMetrics.class);
    /** Tenants exported one by one, those with the most connections; the rest are summed (bounded label cardinality). */
    static final int TENANTS_LISTED = 50;
    private static final Pattern PLAIN_VALUE = Pattern.compile("[A-Za-z0-9_.\\-]+");

    /** The gateway as a whole. */
    public interface GatewayMBean {
        long getOpenConnections();

        int getChannels();

        long getRecordsRead();

        long getChangesPublished();

        long getDeliveries();

        long getDeletesRoutedByMemory();

        long getChannelsEvicted();

        long getDroppedForChannelCap();

        long getHistoryBytes();

        int getCatchUpsQueued();

        long getConsumerLagRecords();

        /** starting, running, down, stopped. */
        String getConsumerState();

        int getTenants();

        /** Connections of the tenants not exported one by one (beyond the {@value #TENANTS_LISTED} with the most). */
        long getOtherTenantsConnections();
    }

    /** One counter of a reason or outcome (refusals, disconnects, resumes, read-backs, skipped records). */
    public interface CounterMBean {
        long getCount();
    }

    /** One topic the gateway's consumer reads, its partitions summed. */
    public interface TopicMBean {
        long getPosition();

        long getEndOffset();

        long getLagRecords();
    }

    /** One tenant holding connections. */
    public interface TenantMBean {
        int getConnections();
    }

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final String domainKeys;
    private final GatewayStats stats;
    private final ConsumerProgress progress;
    private final TenantQuotas quotas;
    private final Set<ObjectName> registered = ConcurrentHashMap.newKeySet();
    private final Set<String> topics = new HashSet<>();
    private final Set<String> tenants = new HashSet<>();
    private volatile long otherTenantsConnections;
    private final ScheduledExecutorService sync;

    /** The counter families: the bean type, how a key becomes the bean's keys, the count and the keys seen. */
    private record Family(String type, Function<String, String> keys, ToLongFunction<String> count,
                          java.util.function.Supplier<Set<String>> seen) {
    }

    private final List<Family> families;

    GatewayMetrics(int port, GatewayStats stats, ChannelHub hub, ConsumerHealth health, TenantQuotas quotas, IntSupplier catchUpsQueued) {
        this.domainKeys = "dev.tideline:type=%s,gateway=" + port;
        this.stats = stats;
        this.progress = hub.progress();
        this.quotas = quotas;
        this.families = List.of(
                new Family("gateway-refusals", GatewayMetrics::statusAndReason, stats::refusedCount, () -> stats.refusedByReason().keySet()),
                new Family("gateway-disconnects", k -> ",reason=" + value(k), stats::disconnects, () -> stats.disconnectsByReason().keySet()),
                new Family("gateway-resumes", k -> ",outcome=" + value(k), stats::resumedCount, () -> stats.resumesByKind().keySet()),
                new Family("gateway-read-backs", k -> ",outcome=" + value(k), stats::readBackCount, () -> stats.readBacksByOutcome().keySet()),
                new Family("gateway-skips", k -> ",reason=" + value(k), stats::skippedCount, () -> stats.skippedByReason().keySet()));
        register(name("gateway", ""), new StandardMBean(new GatewayMBean() {
            public long getOpenConnections() {
                return stats.openConnections.get();
            }

            public int getChannels() {
                return hub.channelCount();
            }

            public long getRecordsRead() {
                return stats.recordsRead.sum();
            }

            public long getChangesPublished() {
                return stats.changesPublished.sum();
            }

            public long getDeliveries() {
                return stats.deliveries.sum();
            }

            public long getDeletesRoutedByMemory() {
                return stats.deletesRoutedByMemory.sum();
            }

            public long getChannelsEvicted() {
                return hub.evictedChannels();
            }

            public long getDroppedForChannelCap() {
                return hub.droppedForCap();
            }

            public long getHistoryBytes() {
                return hub.historyBytes();
            }

            public int getCatchUpsQueued() {
                return catchUpsQueued.getAsInt();
            }

            public long getConsumerLagRecords() {
                return health.lagRecords();
            }

            public String getConsumerState() {
                return health.state().name().toLowerCase(Locale.ROOT);
            }

            public int getTenants() {
                return quotas.tenants();
            }

            public long getOtherTenantsConnections() {
                return otherTenantsConnections;
            }
        }, GatewayMBean.class, false));
        // the reasons the code knows, at 0 from the start; others (refusal and skip reasons) once seen
        for (DisconnectReason r : DisconnectReason.values()) {
            counter(families.get(1), r.wire());
        }
        List.of("live", "cache", "kafka").forEach(k -> counter(families.get(2), k));
        List.of("kafka", "aborted", "failed", "queue-full", "unrecoverable:beyond-retention").forEach(k -> counter(families.get(3), k));
        List.of("401:missing", "401:malformed", "401:bad-signature", "401:expired", "403:forbidden-channel").forEach(k -> counter(families.get(0), k));
        syncNow();
        this.sync = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fanout-metrics");
            t.setDaemon(true);
            return t;
        });
        sync.scheduleWithFixedDelay(this::syncNow, 1, 1, TimeUnit.SECONDS);
    }

    /** Registers the beans of keys seen since the last sync; follows the topics read and the tenants holding connections. */
    void syncNow() {
        try {
            families.forEach(f -> f.seen().get().forEach(k -> counter(f, k)));
            syncTopics();
            syncTenants();
        } catch (RuntimeException e) {
            // the metrics must never stop the gateway; the next sync tries again
            LOG.warn("the gateway's metrics could not be updated: {}", e.toString());
        }
    }

    private void syncTopics() {
        Set<String> now = progress.topics();
        for (String topic : now) {
            if (topics.add(topic)) {
                register(name("gateway-topic", ",topic=" + value(topic)), new StandardMBean(new TopicMBean() {
                    public long getPosition() {
                        return progress.ofTopic(topic).position();
                    }

                    public long getEndOffset() {
                        return progress.ofTopic(topic).endOffset();
                    }

                    public long getLagRecords() {
                        return progress.ofTopic(topic).lagRecords();
                    }
                }, TopicMBean.class, false));
            }
        }
        topics.removeIf(topic -> !now.contains(topic) && unregister(name("gateway-topic", ",topic=" + value(topic))));
    }

    private void syncTenants() {
        Map<String, Integer> byTenant = quotas.connectionsByTenant();
        List<String> listed = byTenant.entrySet().stream()
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(TENANTS_LISTED).map(Map.Entry::getKey).toList();
        Map<String, Integer> others = new HashMap<>(byTenant);
        listed.forEach(others::remove);
        otherTenantsConnections = others.values().stream().mapToLong(Integer::longValue).sum();
        for (String tenant : listed) {
            if (tenants.add(tenant)) {
                register(name("gateway-tenant", ",tenant=" + value(tenant)), new StandardMBean(
                        (TenantMBean) () -> quotas.connections(tenant), TenantMBean.class, false));
            }
        }
        Set<String> keep = new HashSet<>(listed);
        tenants.removeIf(tenant -> !keep.contains(tenant) && unregister(name("gateway-tenant", ",tenant=" + value(tenant))));
    }

    private void counter(Family family, String key) {
        ObjectName n = name(family.type(), family.keys().apply(key));
        if (!registered.contains(n)) {
            register(n, new StandardMBean((CounterMBean) () -> family.count().applyAsLong(key), CounterMBean.class, false));
        }
    }

    /** {@code 401:expired} as {@code status=401,reason=expired}. */
    private static String statusAndReason(String key) {
        int colon = key.indexOf(':');
        return colon < 0 ? ",status=unknown,reason=" + value(key)
                : ",status=" + value(key.substring(0, colon)) + ",reason=" + value(key.substring(colon + 1));
    }

    /** A key property value; {@code unrecoverable:bad-cursor} becomes {@code unrecoverable-bad-cursor}, anything odd is quoted. */
    private static String value(String v) {
        String plain = v.replace(':', '-');
        return PLAIN_VALUE.matcher(plain).matches() ? plain : ObjectName.quote(v);
    }

    private ObjectName name(String type, String keys) {
        try {
            return new ObjectName(String.format(domainKeys, type) + keys);
        } catch (JMException e) {
            throw new IllegalArgumentException("not an MBean name: " + type + keys, e);
        }
    }

    private void register(ObjectName n, StandardMBean bean) {
        try {
            server.registerMBean(bean, n);
            registered.add(n);
        } catch (JMException e) {
            LOG.warn("the gateway's MBean {} could not be registered (another gateway on the same port in this JVM?): {}", n, e.toString());
        }
    }

    /** @return true (for removeIf) once the bean is gone */
    private boolean unregister(ObjectName n) {
        registered.remove(n);
        try {
            server.unregisterMBean(n);
        } catch (JMException e) {
            LOG.debug("MBean {} was already gone: {}", n, e.toString());
        }
        return true;
    }

    @Override
    public void close() {
        sync.shutdownNow();
        registered.stream().sorted(Comparator.comparing(ObjectName::toString)).toList().forEach(this::unregister);
    }
}
