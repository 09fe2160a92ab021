package dev.tideline.sink.config;

import dev.tideline.event.Namespace;
import dev.tideline.sink.check.DestinationPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonParseException;

/**
 * {@code topic.namespace.map}: topic name or regex → {@code db.collection} or {@code collection}.
 * Exact names win over regexes; regexes are tried in the order written (a JSON object's order is
 * kept). A target without a dot names only the collection.
 */
public final class TopicNamespaceMap {
    /** Where a mapped topic goes: the database is absent when the map names only the collection. */
    public record Target(Optional<String> db, String coll) {
    }

    private final Map<String, Target> exact;
    private final List<Map.Entry<Pattern, Target>> patterns;

    private TopicNamespaceMap(Map<String, Target> exact, List<Map.Entry<Pattern, Target>> patterns) {
        this.exact = exact;
        this.patterns = patterns;
    }

    public static TopicNamespaceMap empty() {
        return new TopicNamespaceMap(Map.of(), List.of());
    }

    /** @throws IllegalArgumentException with a message fit for the user when the JSON, a regex or a target is bad */
    public static TopicNamespaceMap parse(String json) {
        if (json == null || json.isBlank()) {
            return empty();
        }
        BsonDocument doc;
        try {
            doc = BsonDocument.parse(json);
        } catch (JsonParseException | org.bson.BsonInvalidOperationException e) {
            throw new IllegalArgumentException("not a JSON object (" + e.getMessage()
                    + "): write it as {\"topic or regex\": \"db.collection\"}", e);
        }
        Map<String, Target> exact = new LinkedHashMap<>();
        List<Map.Entry<Pattern, Target>> patterns = new ArrayList<>();
        for (Map.Entry<String, BsonValue> e : doc.entrySet()) {
            String key = e.getKey();
            if (!e.getValue().isString()) {
                throw new IllegalArgumentException("the target of '" + key + "' must be a string \"db.collection\" or "
                        + "\"collection\", got " + e.getValue().getBsonType());
            }
            Target target = target(key, e.getValue().asString().getValue());
            Pattern pattern;
            try {
                pattern = Pattern.compile(key);
            } catch (PatternSyntaxException ex) {
                throw new IllegalArgumentException("key '" + key + "' is neither a topic name nor a valid regular "
                        + "expression (" + ex.getDescription() + ")", ex);
            }
            exact.put(key, target);
            patterns.add(Map.entry(pattern, target));
        }
        return new TopicNamespaceMap(exact, patterns);
    }

    /** The databases the map's targets name (targets naming only a collection name none). */
    public List<String> databases() {
        return exact.values().stream().flatMap(t -> t.db().stream()).distinct().toList();
    }

    public Optional<Target> lookup(String topic) {
        Target t = exact.get(topic);
        if (t != null) {
            return Optional.of(t);
        }
        for (Map.Entry<Pattern, Target> e : patterns) {
            if (e.getKey().matcher(topic).matches()) {
                return Optional.of(e.getValue());
            }
        }
        return Optional.empty();
    }

    private static Target target(String key, String value) {
        String v = value.trim();
        if (v.isEmpty()) {
            throw new IllegalArgumentException("the target of '" + key + "' is empty: give \"db.collection\" or \"collection\"");
        }
        Namespace ns;
        try {
            // a bare collection is checked under a stand-in database: its own database is checked elsewhere
            ns = v.indexOf('.') < 0 ? new Namespace("db", v) : Namespace.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the target of '" + key + "': " + e.getMessage(), e);
        }
        DestinationPolicy.anyDatabase().problem(ns).ifPresent(p -> {
            throw new IllegalArgumentException("the target of '" + key + "' is refused: " + p);
        });
        return v.indexOf('.') < 0 ? new Target(Optional.empty(), v) : new Target(Optional.of(ns.db()), ns.coll());
    }
}
