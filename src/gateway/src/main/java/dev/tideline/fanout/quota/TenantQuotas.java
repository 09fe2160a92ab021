package dev.tideline.fanout.quota;

import dev.tideline.fanout.channel.ChannelName;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What each tenant holds of the gateway's shared capacity, bounded per tenant so one tenant's token
 * cannot take it all: open subscriptions (connections), distinct channels those subscriptions hold
 * (the channel slots no other subscription can take back), and catch-ups that may read Kafka back
 * ({@code from=earliest}, resumes) queued or running. A subscription takes its share when it is
 * admitted, all or nothing, and gives it back through its {@link Lease}; a tenant over a quota is
 * refused alone. Thread-safe: each tenant's usage changes atomically.
 */
public final class TenantQuotas {
    /** The quotas of every tenant. */
    public record Limits(int connections, int channels, int catchUps) {
    }

    /** A subscription a quota refuses: {@code reason} is the word sent to the client. */
    public static final class QuotaExceededException extends Exception {
        private static final long serialVersionUID = 1L;
        private final String reason;

        QuotaExceededException(String reason, String message) {
            super(message);
            this.reason = reason;
        }

        /** {@code tenant-connections}, {@code tenant-channels} or {@code tenant-catch-ups}. */
        public String reason() {
            return reason;
        }
    }

    /** One tenant's usage; changed only inside {@link ConcurrentHashMap#compute} of its tenant. */
    private static final class Usage {
        int connections;
        int catchUps;
        /** Channel to the number of open subscriptions of the tenant that hold it. */
        final Map<ChannelName, Integer> channels = new HashMap<>();
    }

    private final Limits limits;
    private final Map<String, Usage> byTenant = new ConcurrentHashMap<>();

    public TenantQuotas(Limits limits) {
        this.limits = limits;
    }

    /**
     * Admits one subscription of {@code tenant} to {@code channels}, of which {@code catchUps} may
     * need a read-back from Kafka, or refuses it without taking anything.
     */
    public Lease admit(String tenant, List<ChannelName> channels, int catchUps) throws QuotaExceededException {
        QuotaExceededException[] refused = new QuotaExceededException[1];
        byTenant.compute(tenant, (t, u) -> {
            Usage usage = u == null ? new Usage() : u;
            long added = channels.stream().filter(c -> !usage.channels.containsKey(c)).count();
            if (usage.connections >= limits.connections()) {
                refused[0] = new QuotaExceededException("tenant-connections", "tenant " + t + " holds its quota of "
                        + limits.connections() + " subscriptions (tenant.max.connections): close one or retry later");
            } else if (usage.channels.size() + added > limits.channels()) {
                refused[0] = new QuotaExceededException("tenant-channels", "tenant " + t + " holds " + usage.channels.size()
                        + " channels, this subscription adds " + added + ", its quota is " + limits.channels()
                        + " (tenant.max.channels): retry later");
            } else if (usage.catchUps + catchUps > limits.catchUps()) {
                refused[0] = new QuotaExceededException("tenant-catch-ups", "tenant " + t + " has " + usage.catchUps
                        + " catch-ups in flight, this subscription asks " + catchUps + ", its quota is " + limits.catchUps()
                        + " (tenant.max.catchups): retry later");
            } else {
                usage.connections++;
                usage.catchUps += catchUps;
                channels.forEach(c -> usage.channels.merge(c, 1, Integer::sum));
            }
            return usage.connections == 0 ? null : usage;
        });
        if (refused[0] != null) {
            throw refused[0];
        }
        return new Lease(tenant, List.copyOf(channels), catchUps);
    }

    /** Open subscriptions of a tenant (for tests and /stats). */
    public int connections(String tenant) {
        Usage u = byTenant.get(tenant);
        return u == null ? 0 : u.connections;
    }

    /** Open subscriptions per tenant that holds any (a snapshot, for the gateway's metrics). */
    public Map<String, Integer> connectionsByTenant() {
        Map<String, Integer> out = new HashMap<>();
        byTenant.forEach((t, u) -> {
            int n = u.connections;
            if (n > 0) {
                out.put(t, n);
            }
        });
        return out;
    }

    /** Tenants holding at least one subscription. */
    public int tenants() {
        return byTenant.size();
    }

    /** What one admitted subscription holds until it ends. */
    public final class Lease implements AutoCloseable {
        private final String tenant;
        private final List<ChannelName> channels;
        private int catchUpsHeld;
        private boolean closed;

        private Lease(String tenant, List<ChannelName> channels, int catchUps) {
            this.tenant = tenant;
            this.channels = channels;
            this.catchUpsHeld = catchUps;
        }

        /** One catch-up of this subscription ended, or turned out to need no Kafka read; more calls than taken do nothing. */
        public void releaseCatchUp() {
            synchronized (this) {
                if (closed || catchUpsHeld == 0) {
                    return;
                }
                catchUpsHeld--;
            }
            byTenant.computeIfPresent(tenant, (t, u) -> {
                u.catchUps--;
                return u;
            });
        }

        /** The subscription ended: gives back its connection, channels and catch-ups. Idempotent. */
        @Override
        public void close() {
            int catchUps;
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                catchUps = catchUpsHeld;
                catchUpsHeld = 0;
            }
            byTenant.computeIfPresent(tenant, (t, u) -> {
                u.connections--;
                u.catchUps -= catchUps;
                channels.forEach(c -> u.channels.computeIfPresent(c, (name, n) -> n == 1 ? null : n - 1));
                return u.connections == 0 ? null : u;
            });
        }
    }
}
