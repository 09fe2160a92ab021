package dev.tideline.source.config;

import dev.tideline.event.Namespace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** Namespace → topic: exact overrides, then regex overrides in order, then {@code <prefix>.<db>.<coll>}. */
public final class TopicNamer {
    static final String REGEX_PREFIX = "regex:";
    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private final String prefix;
    private final Map<String, String> exact;
    private final List<Map.Entry<Pattern, String>> regex;

    TopicNamer(String prefix, Map<String, String> exact, List<Map.Entry<Pattern, String>> regex) {
        this.prefix = prefix;
        this.exact = exact;
        this.regex = regex;
    }

    /** @throws ConfigException on topic.namespace.map when a key or value is unusable */
    public static TopicNamer fromConfig(String prefix, BsonDocument map) {
        Map<String, String> exact = new HashMap<>();
        List<Map.Entry<Pattern, String>> regex = new ArrayList<>();
        for (Map.Entry<String, BsonValue> e : map.entrySet()) {
            if (!e.getValue().isString()) {
                throw new ConfigException("topic.namespace.map", e.getKey(), "the value of \"" + e.getKey() + "\" must be a topic name (a string)");
            }
            String topic = e.getValue().asString().getValue();
            if (e.getKey().startsWith(REGEX_PREFIX)) {
                String re = e.getKey().substring(REGEX_PREFIX.length());
                regex.add(Map.entry(dev.tideline.config.Validators.compile("topic.namespace.map", re), topic));
            } else {
                if (!LEGAL_TOPIC.matcher(topic).matches()) {
                    throw new ConfigException("topic.namespace.map", topic, "not a legal Kafka topic name (letters, digits, '.', '_', '-')");
                }
                exact.put(e.getKey(), topic);
            }
        }
        return new TopicNamer(prefix, Map.copyOf(exact), List.copyOf(regex));
    }

    public String topicFor(Namespace ns) {
        String full = ns.fullName();
        String topic = exact.get(full);
        if (topic != null) {
            return topic;
        }
        for (Map.Entry<Pattern, String> e : regex) {
            Matcher m = e.getKey().matcher(full);
            if (m.matches()) {
                // replace the whole match found by matches(): replaceFirst would search again with find(),
                // which stops early on a reluctant pattern and leaves the rest of the namespace appended
                StringBuilder replaced = new StringBuilder();
                m.appendReplacement(replaced, e.getValue());
                return sanitize(replaced.toString());
            }
        }
        return sanitize(prefix + "." + full);
    }

    /** Kafka topic names allow [a-zA-Z0-9._-]; MongoDB names allow more: replace the rest with '_'. */
    static String sanitize(String topic) {
        StringBuilder sb = new StringBuilder(topic.length());
        for (int i = 0; i < topic.length() && sb.length() < 249; i++) {
            char c = topic.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
            sb.append(ok ? c : '_');
        }
        return sb.toString();
    }
}
