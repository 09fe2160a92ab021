package dev.tideline.source.config;

import dev.tideline.mongo.NameFilter;
import dev.tideline.config.Validators;
import dev.tideline.event.Namespace;
import java.util.List;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** Which databases and collections are captured. */
public final class SelectionSettings {
    public static final String GROUP = "Selection";
    public static final String DATABASE_INCLUDE = "database.include";
    public static final String DATABASE_EXCLUDE = "database.exclude";
    public static final String COLLECTION_INCLUDE = "collection.include";
    public static final String COLLECTION_EXCLUDE = "collection.exclude";
    public static final String DISCOVERY_INTERVAL_MS = "collection.discovery.interval.ms";

    /** Never captured: MongoDB's own databases. */
    private static final List<String> SYSTEM_DATABASES = List.of("admin", "local", "config");

    private final NameFilter databases;
    private final NameFilter collections;
    private final long discoveryIntervalMs;

    SelectionSettings(AbstractConfig c) {
        databases = NameFilter.of(DATABASE_INCLUDE, c.getList(DATABASE_INCLUDE), c.getList(DATABASE_EXCLUDE));
        collections = NameFilter.of(COLLECTION_INCLUDE, c.getList(COLLECTION_INCLUDE), c.getList(COLLECTION_EXCLUDE));
        discoveryIntervalMs = c.getLong(DISCOVERY_INTERVAL_MS);
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(DATABASE_INCLUDE, Type.LIST, "", Validators.regexList(), Importance.HIGH,
                "Databases to capture: regular expressions matched against the whole database name. Empty: every "
                        + "database except admin, local and config.",
                GROUP, ++order, Width.LONG, "Databases to include");
        def.define(DATABASE_EXCLUDE, Type.LIST, "", Validators.regexList(), Importance.MEDIUM,
                "Databases never captured (regular expressions on the whole name); wins over database.include.",
                GROUP, ++order, Width.LONG, "Databases to exclude");
        def.define(COLLECTION_INCLUDE, Type.LIST, "", Validators.regexList(), Importance.HIGH,
                "Collections to capture: regular expressions matched against the whole namespace <db>.<collection>, "
                        + "e.g. shop\\.orders or shop\\..*. Empty: every collection of the included databases. Only real "
                        + "collections: views and time-series collections are never captured. Collections created later are "
                        + "picked up without a restart.",
                GROUP, ++order, Width.LONG, "Collections to include");
        def.define(COLLECTION_EXCLUDE, Type.LIST, "", Validators.regexList(), Importance.MEDIUM,
                "Collections never captured (regular expressions on <db>.<collection>); wins over collection.include. "
                        + "system.* collections and Tideline's own collections (_tideline*) are always excluded.",
                GROUP, ++order, Width.LONG, "Collections to exclude");
        def.define(DISCOVERY_INTERVAL_MS, Type.LONG, 30_000L, ConfigDef.Range.atLeast(1_000), Importance.LOW,
                "How often each task lists the source's collections to pick up new ones of its share, without "
                        + "restarting anything (the task configs do not change with the collections).",
                GROUP, ++order, Width.SHORT, "Collection discovery interval (ms)");
    }

    public boolean includesDatabase(String db) {
        if (SYSTEM_DATABASES.contains(db)) {
            return false;
        }
        return databases.accepts(db);
    }

    public boolean includes(Namespace ns) {
        String coll = ns.coll();
        if (coll.startsWith("system.") || coll.startsWith("_tideline")) {
            return false;
        }
        return includesDatabase(ns.db()) && collections.accepts(ns.fullName());
    }

    public long discoveryIntervalMs() {
        return discoveryIntervalMs;
    }
}
