package dev.tideline.fanout.config;

import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;

/** The fanout gateway's settings (config/fanout-gateway.properties), in fragments by concern. */
public final class GatewaySettings {
    public static final String BIND_ADDRESS = HttpSettings.BIND_ADDRESS;
    public static final String HTTP_PORT = HttpSettings.HTTP_PORT;
    public static final String KAFKA_BOOTSTRAP = KafkaSettings.BOOTSTRAP;
    public static final String TOPICS_REGEX = KafkaSettings.TOPICS_REGEX;
    public static final String TOPICS_REFRESH_MS = KafkaSettings.TOPICS_REFRESH_MS;
    public static final String VALUE_FORMAT = KafkaSettings.VALUE_FORMAT;
    public static final String AUTH_SECRET = AuthSettings.SECRET;
    public static final String HISTORY_SIZE = ResumeSettings.HISTORY_SIZE;
    public static final String HISTORY_AGE_MS = ResumeSettings.HISTORY_AGE_MS;
    public static final String QUEUE_MAX_BYTES = DeliverySettings.QUEUE_MAX_BYTES;
    public static final String SEND_BUFFER_BYTES = DeliverySettings.SEND_BUFFER_BYTES;

    public static final ConfigDef CONFIG_DEF = configDef();

    private final HttpSettings http;
    private final KafkaSettings kafka;
    private final AuthSettings auth;
    private final DeliverySettings delivery;
    private final ResumeSettings resume;
    private final TenantSettings tenants;

    public GatewaySettings(Map<?, ?> props) {
        AbstractConfig c = new AbstractConfig(CONFIG_DEF, props, false);
        http = new HttpSettings(c);
        kafka = new KafkaSettings(c);
        auth = new AuthSettings(c);
        delivery = new DeliverySettings(c);
        resume = new ResumeSettings(c);
        tenants = new TenantSettings(c);
    }

    private static ConfigDef configDef() {
        ConfigDef def = new ConfigDef();
        HttpSettings.define(def);
        KafkaSettings.define(def);
        AuthSettings.define(def);
        DeliverySettings.define(def);
        ResumeSettings.define(def);
        TenantSettings.define(def);
        return def;
    }

    public HttpSettings http() {
        return http;
    }

    public KafkaSettings kafka() {
        return kafka;
    }

    public AuthSettings auth() {
        return auth;
    }

    public DeliverySettings delivery() {
        return delivery;
    }

    public ResumeSettings resume() {
        return resume;
    }

    public TenantSettings tenants() {
        return tenants;
    }
}
