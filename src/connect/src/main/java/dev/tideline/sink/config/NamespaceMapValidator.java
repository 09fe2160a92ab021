package dev.tideline.sink.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/** {@code topic.namespace.map} must parse as {@link TopicNamespaceMap} (JSON object, valid regexes and namespaces). */
final class NamespaceMapValidator implements ConfigDef.Validator {
    @Override
    public void ensureValid(String name, Object value) {
        try {
            TopicNamespaceMap.parse((String) value);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(name, value, e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "a JSON object: {\"topic or regex\": \"db.collection\" or \"collection\"}";
    }
}
