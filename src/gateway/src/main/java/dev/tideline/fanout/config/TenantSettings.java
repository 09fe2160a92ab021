package dev.tideline.fanout.config;

import dev.tideline.fanout.quota.TenantQuotas;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** What one tenant may hold of the gateway's shared capacity, so that no tenant's token can take it all. */
public final class TenantSettings {
    static final String GROUP = "Tenant quotas";
    public static final String MAX_CONNECTIONS = "tenant.max.connections";
    public static final String MAX_CHANNELS = "tenant.max.channels";
    public static final String MAX_CATCHUPS = "tenant.max.catchups";

    private final TenantQuotas.Limits limits;

    TenantSettings(AbstractConfig c) {
        limits = new TenantQuotas.Limits(c.getInt(MAX_CONNECTIONS), c.getInt(MAX_CHANNELS), c.getInt(MAX_CATCHUPS));
    }

    static void define(ConfigDef def) {
        int o = 0;
        def.define(MAX_CONNECTIONS, Type.INT, 5_000, ConfigDef.Range.between(1, 1_000_000), Importance.MEDIUM,
                "Subscriptions (SSE and WebSocket connections) one tenant may hold open at once; one more of that tenant is "
                        + "refused (429 tenant-connections), other tenants are not affected. Keep it under "
                        + "http.max.connections, so that one tenant cannot hold every connection.",
                GROUP, ++o, Width.SHORT, "Connections per tenant");
        def.define(MAX_CHANNELS, Type.INT, 10_000, ConfigDef.Range.between(1, 10_000_000), Importance.MEDIUM,
                "Distinct channels one tenant's open subscriptions may hold at once (a channel with subscribers keeps its slot "
                        + "of channels.max); a subscription that would take more is refused (429 tenant-channels). Keep it "
                        + "under channels.max, so that one tenant cannot fill every slot.",
                GROUP, ++o, Width.SHORT, "Channels per tenant");
        def.define(MAX_CATCHUPS, Type.INT, 32, ConfigDef.Range.between(1, 1_000_000), Importance.MEDIUM,
                "Channels of one tenant's subscriptions that may be catching up from Kafka at once (from=earliest, or a resume "
                        + "that the history does not cover), queued or being read, counted from the subscription until its "
                        + "read-back ends; a subscription that would take more is refused (429 tenant-catch-ups) and retries. "
                        + "The Kafka readers (resume.kafka.readers) take the channels of different tenants in turn.",
                GROUP, ++o, Width.SHORT, "Catch-ups per tenant");
    }

    public TenantQuotas.Limits limits() {
        return limits;
    }
}
