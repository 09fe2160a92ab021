package dev.tideline.sink.config;

import dev.tideline.config.Validators;
import dev.tideline.mongo.NameFilter;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** Which collection each change lands in, and which source collections this destination takes at all. */
public final class RoutingSettings {
    public static final String GROUP = "Routing";
    public static final String DATABASE = "database";
    public static final String TOPIC_NAMESPACE_MAP = "topic.namespace.map";
    public static final String COLLECTION_INCLUDE = "collection.include";
    public static final String COLLECTION_EXCLUDE = "collection.exclude";

    private final Optional<String> database;
    private final TopicNamespaceMap topicMap;
    private final NameFilter filter;

    RoutingSettings(AbstractConfig c) {
        String db = c.getString(DATABASE).trim();
        List<String> include = c.getList(COLLECTION_INCLUDE);
        List<String> exclude = c.getList(COLLECTION_EXCLUDE);
        database = db.isEmpty() ? Optional.empty() : Optional.of(db);
        topicMap = TopicNamespaceMap.parse(c.getString(TOPIC_NAMESPACE_MAP));
        filter = NameFilter.of("collection.include", include, exclude);
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(DATABASE, Type.STRING, "", new DatabaseNameValidator("the source database"), Importance.HIGH,
                "Destination database. Empty (default): each change lands in the database it came from. "
                        + "Also the database of plain-document records that carry no namespace (their collection "
                        + "is then the topic name, unless topic.namespace.map says otherwise).",
                GROUP, ++order, Width.MEDIUM, "Destination database");
        def.define(TOPIC_NAMESPACE_MAP, Type.STRING, "{}", new NamespaceMapValidator(), Importance.MEDIUM,
                "Overrides of the destination collection per topic, as a JSON object whose keys are topic names or "
                        + "regular expressions (exact names are tried first, then regexes in order) and whose values are "
                        + "'db.collection' or 'collection' (database from 'database', else the source database). "
                        + "Example: {\"shop.orders\": \"archive.orders\", \"shop\\\\..*\": \"all_changes\"}.",
                GROUP, ++order, Width.LONG, "Topic to namespace map");
        def.define(COLLECTION_INCLUDE, Type.LIST, "", Validators.regexList(), Importance.MEDIUM,
                "Regular expressions on the SOURCE namespace 'db.collection' of each change: when set, only matching "
                        + "changes are applied. Lets several sink connectors read the same topics and each take its "
                        + "own collections. Records without a source namespace are matched on their destination namespace.",
                GROUP, ++order, Width.LONG, "Include collections");
        def.define(COLLECTION_EXCLUDE, Type.LIST, "", Validators.regexList(), Importance.MEDIUM,
                "Regular expressions on the SOURCE namespace 'db.collection': matching changes are skipped "
                        + "(applied after collection.include).",
                GROUP, ++order, Width.LONG, "Exclude collections");
    }

    /** The destination database; empty: each change lands in the database it came from. */
    public Optional<String> database() {
        return database;
    }

    public TopicNamespaceMap topicMap() {
        return topicMap;
    }

    /** collection.include and collection.exclude, on the source namespace. */
    public NameFilter filter() {
        return filter;
    }
}
