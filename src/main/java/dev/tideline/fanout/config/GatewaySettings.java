package dev.tideline.fanout.config;

import dev.tideline.config.Validators;
import dev.tideline.event.ValueFormat;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** The fanout gateway's settings (config/fanout-gateway.properties), with typed getters. */
public final class GatewaySettings {
    public static final String BIND_ADDRESS = "bind.address";
    public static final String HTTP_PORT = "http.port";
    public static final String KAFKA_BOOTSTRAP = "kafka.bootstrap.servers";
    public static final String TOPICS_REGEX = "topics.regex";
    public static final String TOPICS_REFRESH_MS = "topics.refresh.ms";
    public static final String VALUE_FORMAT = "value.format";
    public static final String AUTH_SECRET = "auth.hmac.secret";
    public static final String AUTH_LEEWAY_MS = "auth.leeway.ms";
    public static final String HISTORY_SIZE = "history.size";
    public static final String HISTORY_AGE_MS = "history.age.ms";
    public static final String QUEUE_MAX_BYTES = "client.queue.max.bytes";
    public static final String QUEUE_TOTAL_MAX_BYTES = "client.queue.total.max.bytes";
    public static final String SEND_BUFFER_BYTES = "client.send.buffer.bytes";
    public static final String MAX_CHANNELS = "subscription.max.channels";

    private static final String G_HTTP = "HTTP";
    private static final String G_KAFKA = "Kafka";
    private static final String G_AUTH = "Tokens";
    private static final String G_DELIVERY = "Delivery";

    private static final ConfigDef.Validator REGEX = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            Validators.compile(name, String.valueOf(value));
        }

        @Override
        public String toString() {
            return "a Java regular expression";
        }
    };

    private static final ConfigDef.Validator SECRET = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            if (value == null || ((Password) value).value().getBytes(StandardCharsets.UTF_8).length < 32) {
                throw new ConfigException(name, "(hidden)", "the HMAC secret must be at least 32 bytes: generate one with "
                        + "`openssl rand -base64 48`");
            }
        }

        @Override
        public String toString() {
            return "at least 32 bytes";
        }
    };

    public static final ConfigDef CONFIG_DEF = configDef();

    private final String bindAddress;
    private final int httpPort;
    private final String bootstrapServers;
    private final Pattern topics;
    private final long topicsRefreshMs;
    private final ValueFormat valueFormat;
    private final byte[] secret;
    private final long leewayMs;
    private final int historySize;
    private final long historyAgeMs;
    private final long queueMaxBytes;
    private final long queueTotalMaxBytes;
    private final int sendBufferBytes;
    private final int maxChannels;

    public GatewaySettings(Map<?, ?> props) {
        AbstractConfig c = new AbstractConfig(CONFIG_DEF, props, false);
        bindAddress = c.getString(BIND_ADDRESS);
        httpPort = c.getInt(HTTP_PORT);
        bootstrapServers = c.getString(KAFKA_BOOTSTRAP);
        topics = Pattern.compile(c.getString(TOPICS_REGEX));
        topicsRefreshMs = c.getLong(TOPICS_REFRESH_MS);
        valueFormat = ValueFormat.fromConfig(c.getString(VALUE_FORMAT));
        secret = c.getPassword(AUTH_SECRET).value().getBytes(StandardCharsets.UTF_8);
        leewayMs = c.getLong(AUTH_LEEWAY_MS);
        historySize = c.getInt(HISTORY_SIZE);
        historyAgeMs = c.getLong(HISTORY_AGE_MS);
        queueMaxBytes = c.getLong(QUEUE_MAX_BYTES);
        queueTotalMaxBytes = c.getLong(QUEUE_TOTAL_MAX_BYTES);
        sendBufferBytes = c.getInt(SEND_BUFFER_BYTES);
        maxChannels = c.getInt(MAX_CHANNELS);
    }

    private static ConfigDef configDef() {
        ConfigDef def = new ConfigDef();
        int o = 0;
        def.define(BIND_ADDRESS, Type.STRING, "127.0.0.1", new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Address the HTTP server listens on. Loopback by default: put a TLS proxy in front before opening it wider.",
                G_HTTP, ++o, Width.MEDIUM, "Bind address");
        def.define(HTTP_PORT, Type.INT, 8090, ConfigDef.Range.between(0, 65535), Importance.HIGH,
                "HTTP port for /sse, /ws, the JavaScript client and the demo page; 0 picks a free port (logged at start).",
                G_HTTP, ++o, Width.SHORT, "HTTP port");
        o = 0;
        def.define(KAFKA_BOOTSTRAP, Type.STRING, "localhost:9092", new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Kafka brokers holding the source's change topics. The gateway reads them with one consumer, assigned to "
                        + "every partition (no consumer group).", G_KAFKA, ++o, Width.LONG, "Bootstrap servers");
        def.define(TOPICS_REGEX, Type.STRING, "tideline\\..*", REGEX, Importance.HIGH,
                "Regular expression of the change topics to read (the source's <topic.prefix>.<db>.<collection>). Heartbeat "
                        + "and control records are recognised by their tl.kind header and skipped.", G_KAFKA, ++o, Width.LONG, "Topics");
        def.define(TOPICS_REFRESH_MS, Type.LONG, 5000L, ConfigDef.Range.atLeast(100), Importance.LOW,
                "How often the gateway looks for new matching topics and partitions.", G_KAFKA, ++o, Width.SHORT, "Topic refresh");
        def.define(VALUE_FORMAT, Type.STRING, "json", Validators.oneOf("json", "bson"), Importance.HIGH,
                "The source's output.format: json (JsonConverter, schemas.enable=false) or bson (ByteArrayConverter).",
                G_KAFKA, ++o, Width.SHORT, "Value format");
        o = 0;
        def.define(AUTH_SECRET, Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE, SECRET, Importance.HIGH,
                "Shared HMAC-SHA256 key (at least 32 bytes) that subscriber tokens are signed with. Tokens are HS256 JWTs "
                        + "with claims tenant, channels (patterns <db>.<coll>.<tenant>, db and coll may be *) and exp.",
                G_AUTH, ++o, Width.LONG, "HMAC secret");
        def.define(AUTH_LEEWAY_MS, Type.LONG, 0L, ConfigDef.Range.between(0, 300_000), Importance.LOW,
                "Clock skew tolerated on exp and nbf.", G_AUTH, ++o, Width.SHORT, "Clock leeway");
        o = 0;
        def.define(HISTORY_SIZE, Type.INT, 1000, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "Changes kept per channel for Last-Event-ID resume; a client further behind gets an 'unrecoverable' event.",
                G_DELIVERY, ++o, Width.SHORT, "History size");
        def.define(HISTORY_AGE_MS, Type.LONG, 300_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "How long a change stays in a channel's history. At start-up the gateway refills the history by reading the "
                        + "topics from this far back.", G_DELIVERY, ++o, Width.SHORT, "History age");
        def.define(QUEUE_MAX_BYTES, Type.LONG, 1_048_576L, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                "Bytes a connection may have waiting to be written; beyond it the client is disconnected as a slow consumer.",
                G_DELIVERY, ++o, Width.SHORT, "Client queue bound");
        def.define(QUEUE_TOTAL_MAX_BYTES, Type.LONG, 268_435_456L, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                "Bytes all connections together may have waiting (keep it well under the heap, -Xmx); a connection that "
                        + "would go over it is disconnected with reason 'overloaded' and resumes later.",
                G_DELIVERY, ++o, Width.SHORT, "Total queue bound");
        def.define(SEND_BUFFER_BYTES, Type.INT, 0, ConfigDef.Range.atLeast(0), Importance.LOW,
                "Socket send buffer per connection (SO_SNDBUF); 0 leaves the operating system's default.",
                G_DELIVERY, ++o, Width.SHORT, "Socket send buffer");
        def.define(MAX_CHANNELS, Type.INT, 32, ConfigDef.Range.between(1, 1000), Importance.LOW,
                "Channels one connection may subscribe to.", G_DELIVERY, ++o, Width.SHORT, "Channels per connection");
        return def;
    }

    public String bindAddress() { return bindAddress; }
    public int httpPort() { return httpPort; }
    public String bootstrapServers() { return bootstrapServers; }
    public Pattern topics() { return topics; }
    public long topicsRefreshMs() { return topicsRefreshMs; }
    public ValueFormat valueFormat() { return valueFormat; }
    public byte[] secret() { return secret.clone(); }
    public long leewayMs() { return leewayMs; }
    public int historySize() { return historySize; }
    public long historyAgeMs() { return historyAgeMs; }
    public long queueMaxBytes() { return queueMaxBytes; }
    public long queueTotalMaxBytes() { return queueTotalMaxBytes; }
    public int sendBufferBytes() { return sendBufferBytes; }
    public int maxChannels() { return maxChannels; }
}
