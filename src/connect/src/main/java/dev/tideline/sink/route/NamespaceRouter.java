package dev.tideline.sink.route;

import dev.tideline.event.MalformedRecordException;
import dev.tideline.mongo.NameFilter;
import dev.tideline.event.Namespace;
import dev.tideline.sink.check.DestinationPolicy;
import dev.tideline.event.RefusedRecordException;
import dev.tideline.sink.config.TopicNamespaceMap;
import dev.tideline.sink.decode.SinkChange;
import java.util.Optional;

/**
 * Decides where a change lands, and whether this destination takes it at all.
 * Destination collection: the {@code topic.namespace.map} entry of the record's topic, else the
 * collection the change came from, else (records without a namespace) the topic name. Destination
 * database: the mapped one, else {@code database}, else the source database. Then the
 * {@link DestinationPolicy}: a destination the sink never writes refuses the record, whatever its
 * envelope or header says.
 */
public final class NamespaceRouter {
    private final Optional<String> database;
    private final TopicNamespaceMap topicMap;
    private final NameFilter filter;
    private final DestinationPolicy policy;

    public NamespaceRouter(Optional<String> database, TopicNamespaceMap topicMap, NameFilter filter, DestinationPolicy policy) {
        this.database = database;
        this.topicMap = topicMap;
        this.filter = filter;
        this.policy = policy;
    }

    /**
     * @return the routed change, or empty when the collection filter leaves it to another destination
     * @throws RefusedRecordException when the destination is one the sink never writes
     */
    public Optional<RoutedChange> route(SinkChange change) {
        return destination(change.record().topic(), change.sourceNs()).map(d -> new RoutedChange(change, d));
    }

    /**
     * Where a record of {@code topic} about {@code source} (null when it names none) lands, by the same
     * rules as a change; empty when the collection filter leaves it to another destination.
     */
    public Optional<Namespace> destination(String topic, Namespace source) {
        Namespace destination = destinationOf(topic, source);
        Namespace filtered = source != null ? source : destination;
        if (!filter.accepts(filtered.fullName())) {
            return Optional.empty();
        }
        policy.problem(destination).ifPresent(p -> {
            throw new RefusedRecordException("refused: destination " + destination + " (from " + (source != null
                    ? "the record's namespace " + source : "topic '" + topic + "'") + "): " + p);
        });
        return Optional.of(destination);
    }

    private Namespace destinationOf(String topic, Namespace source) {
        Optional<TopicNamespaceMap.Target> mapped = topicMap.lookup(topic);
        String coll = mapped.map(TopicNamespaceMap.Target::coll)
                .orElse(source != null ? source.coll() : topic);
        Optional<String> db = mapped.flatMap(TopicNamespaceMap.Target::db).or(() -> database);
        if (db.isEmpty() && source != null) {
            db = Optional.of(source.db());
        }
        if (db.isEmpty()) {
            throw new MalformedRecordException("no destination database for a record of topic '" + topic
                    + "' that names no source namespace: set 'database', or map the topic to 'db.collection' "
                    + "in topic.namespace.map");
        }
        try {
            return new Namespace(db.get(), coll);
        } catch (IllegalArgumentException e) {
            throw new MalformedRecordException("cannot route topic '" + topic + "': " + e.getMessage(), e);
        }
    }
}
