package dev.tideline.fanout.config;

import dev.tideline.config.Validators;
import dev.tideline.event.ValueFormat;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** Which topics the gateway reads, from where, and what their records look like. */
public final class KafkaSettings {
    static final String GROUP = "Kafka";
    public static final String BOOTSTRAP = "kafka.bootstrap.servers";
    public static final String TOPICS_REGEX = "topics.regex";
    public static final String TOPICS_REFRESH_MS = "topics.refresh.ms";
    public static final String VALUE_FORMAT = "value.format";
    public static final String MAX_DEPTH = "record.max.depth";
    /** Keys under this prefix go to the gateway's Kafka consumers as they are (security, SASL, TLS). */
    public static final String CLIENT_PREFIX = "kafka.consumer.";

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

    private final String bootstrapServers;
    private final Pattern topics;
    private final long refreshMs;
    private final ValueFormat valueFormat;
    private final int maxDepth;
    private final Map<String, Object> clientOverrides;

    KafkaSettings(AbstractConfig c) {
        bootstrapServers = c.getString(BOOTSTRAP);
        topics = Pattern.compile(c.getString(TOPICS_REGEX));
        refreshMs = c.getLong(TOPICS_REFRESH_MS);
        valueFormat = ValueFormat.fromConfig(c.getString(VALUE_FORMAT));
        maxDepth = c.getInt(MAX_DEPTH);
        clientOverrides = Map.copyOf(new HashMap<>(c.originalsWithPrefix(CLIENT_PREFIX)));
    }

    static void define(ConfigDef def) {
        int o = 0;
        def.define(BOOTSTRAP, Type.STRING, "localhost:9092", new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Kafka brokers holding the source's change topics. The gateway reads them with one consumer, assigned to "
                        + "every partition (no consumer group), plus resume.kafka.readers consumers that read back what a "
                        + "resuming client missed. Other client settings (security.protocol, sasl.*, ssl.*) go under the "
                        + "prefix kafka.consumer., e.g. kafka.consumer.security.protocol=SASL_SSL.",
                GROUP, ++o, Width.LONG, "Bootstrap servers");
        def.define(TOPICS_REGEX, Type.STRING, "tideline\\..*", REGEX, Importance.HIGH,
                "Regular expression of the change topics to read (the source's <topic.prefix>.<db>.<collection>). Heartbeat "
                        + "and control records are recognised by their tl.kind header and skipped.", GROUP, ++o, Width.LONG, "Topics");
        def.define(TOPICS_REFRESH_MS, Type.LONG, 5000L, ConfigDef.Range.atLeast(100), Importance.LOW,
                "How often the gateway looks for new matching topics and partitions, measures its lag and checks that it "
                        + "reaches the brokers (/health).", GROUP, ++o, Width.SHORT, "Topic refresh");
        def.define(VALUE_FORMAT, Type.STRING, "json", Validators.oneOf("json", "bson"), Importance.HIGH,
                "The source's output.format: json (JsonConverter, schemas.enable=false) or bson (ByteArrayConverter).",
                GROUP, ++o, Width.SHORT, "Value format");
        def.define(MAX_DEPTH, Type.INT, 110, ConfigDef.Range.between(8, 1000), Importance.LOW,
                "Deepest nesting of objects and arrays a record value may have; a deeper one is skipped and counted "
                        + "(too-deep at /stats) before anything decodes it. MongoDB stores at most 100 levels; the change "
                        + "envelope and Extended JSON wrappers add a few.", GROUP, ++o, Width.SHORT, "Maximum nesting");
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public Pattern topics() {
        return topics;
    }

    public long refreshMs() {
        return refreshMs;
    }

    public ValueFormat valueFormat() {
        return valueFormat;
    }

    public int maxDepth() {
        return maxDepth;
    }

    /** The kafka.consumer.* settings, without the prefix. */
    public Map<String, Object> clientOverrides() {
        return clientOverrides;
    }
}
