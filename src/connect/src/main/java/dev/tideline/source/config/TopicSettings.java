package dev.tideline.source.config;

import dev.tideline.config.Validators;
import dev.tideline.event.Namespace;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** Where records go. */
public final class TopicSettings {
    public static final String GROUP = "Topics";
    public static final String TOPIC_PREFIX = "topic.prefix";
    public static final String TOPIC_NAMESPACE_MAP = "topic.namespace.map";
    public static final String HEARTBEAT_TOPIC = "heartbeat.topic";
    public static final String CONTROL_TOPIC = "control.topic";

    private final TopicNamer namer;
    private final String heartbeatTopic;
    private final String controlTopic;
    private final MarkerPartitions markerPartitions;

    TopicSettings(AbstractConfig c) {
        String prefix = c.getString(TOPIC_PREFIX);
        namer = TopicNamer.fromConfig(prefix, Validators.parseJsonObject(TOPIC_NAMESPACE_MAP, c.getString(TOPIC_NAMESPACE_MAP)));
        String hb = c.getString(HEARTBEAT_TOPIC);
        heartbeatTopic = hb == null || hb.isBlank() ? prefix + ".heartbeats" : hb;
        String control = c.getString(CONTROL_TOPIC);
        controlTopic = control == null || control.isBlank() ? prefix + ".control" : control;
        markerPartitions = MarkerPartitions.of(c.getInt(CaptureSettings.RESNAPSHOT_MARKER_PARTITIONS), c.originals());
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(TOPIC_PREFIX, Type.STRING, "tideline", new ConfigDef.NonEmptyString(), Importance.HIGH,
                "Prefix of the change topics: a collection's changes go to <prefix>.<db>.<collection> unless "
                        + "topic.namespace.map says otherwise.",
                GROUP, ++order, Width.MEDIUM, "Topic prefix");
        def.define(TOPIC_NAMESPACE_MAP, Type.STRING, "", Validators.jsonObject("namespace or regex -> topic"), Importance.MEDIUM,
                "Topic overrides as a JSON object. Keys are exact namespaces (\"shop.orders\") or, prefixed with "
                        + "\"regex:\", regular expressions on the namespace (\"regex:shop\\\\.archive_.*\"); values are topic "
                        + "names, where $1, $2... refer to regex groups. Exact keys win over regex keys; regex keys are tried "
                        + "in the order written. Example: {\"shop.orders\": \"orders\", \"regex:logs\\\\.(.*)\": \"logs-$1\"}.",
                GROUP, ++order, Width.LONG, "Namespace to topic map");
        def.define(HEARTBEAT_TOPIC, Type.STRING, "", Importance.LOW,
                "Topic of heartbeat records (header tl.kind=heartbeat) that move the offsets of quiet collections forward. "
                        + "Default: <prefix>.heartbeats. Give it a short retention.",
                GROUP, ++order, Width.MEDIUM, "Heartbeat topic");
        def.define(CONTROL_TOPIC, Type.STRING, "", Importance.LOW,
                "Topic of control records (header tl.kind=control): drop, rename, dropDatabase, invalidate and lost-history "
                        + "notices, which no sink applies; a drop's or rename's says whether drop.policy applied it. "
                        + "Default: <prefix>.control.",
                GROUP, ++order, Width.MEDIUM, "Control topic");
    }

    public TopicNamer namer() {
        return namer;
    }

    public String heartbeatTopic() {
        return heartbeatTopic;
    }

    public String controlTopic() {
        return controlTopic;
    }

    /** The partition count of each change topic, for the copy markers. */
    public MarkerPartitions markerPartitions() {
        return markerPartitions;
    }

    /** How many partitions of {@code ns}'s change topic its copy and drop markers go to: every one of them. */
    public int markerPartitions(Namespace ns) {
        return markerPartitions.forTopic(namer.topicFor(ns));
    }
}
