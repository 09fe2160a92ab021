package dev.tideline.sink.config;

import dev.tideline.config.ConfigChoices;
import dev.tideline.sink.check.ShardKeys;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/** How changes are written. */
public final class WriteSettings {
    public static final String GROUP = "Writes";
    public static final String WRITE_MODE = "write.mode";
    public static final String TOMBSTONE_ACTION = "tombstone.action";
    public static final String STALE_GUARD = "stale.guard";
    public static final String VERSION_FIELD = "version.field";
    public static final String BULK_CHUNK_SIZE = "bulk.chunk.size";
    public static final String SHARD_KEY_FIELDS = "shard.key.fields";
    /** MongoDB caps one bulk write call at this many operations (maxWriteBatchSize is 100,000; seed 001 uses 1,000). */
    public static final int MAX_BULK_CHUNK_SIZE = 1000;

    private final WriteMode writeMode;
    private final TombstoneAction tombstoneAction;
    private final StaleGuardMode staleGuard;
    private final Optional<String> versionField;
    private final int bulkChunkSize;
    private final List<String> shardKeyFields;

    WriteSettings(AbstractConfig c) {
        writeMode = ConfigChoices.parse(WriteMode.class, WRITE_MODE, c.getString(WRITE_MODE));
        tombstoneAction = ConfigChoices.parse(TombstoneAction.class, TOMBSTONE_ACTION, c.getString(TOMBSTONE_ACTION));
        staleGuard = ConfigChoices.parse(StaleGuardMode.class, STALE_GUARD, c.getString(STALE_GUARD));
        String version = c.getString(VERSION_FIELD).trim();
        versionField = version.isEmpty() ? Optional.empty() : Optional.of(version);
        bulkChunkSize = c.getInt(BULK_CHUNK_SIZE);
        shardKeyFields = c.getList(SHARD_KEY_FIELDS).stream().map(String::trim).toList();
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(WRITE_MODE, Type.STRING, ConfigChoices.nameOf(WriteMode.UPSERT), ConfigChoices.validator(WriteMode.class),
                Importance.MEDIUM,
                "upsert: insert/update/replace/read replace the document by _id, inserting it when absent. "
                        + "update: replace only documents that already exist.",
                GROUP, ++order, Width.SHORT, "Write mode", ConfigChoices.recommender(WriteMode.class));
        def.define(TOMBSTONE_ACTION, Type.STRING, ConfigChoices.nameOf(TombstoneAction.DELETE),
                ConfigChoices.validator(TombstoneAction.class), Importance.MEDIUM,
                "What a Kafka tombstone (null value) does: delete the document whose _id is the record key, or ignore it.",
                GROUP, ++order, Width.SHORT, "Tombstone action", ConfigChoices.recommender(TombstoneAction.class));
        def.define(STALE_GUARD, Type.STRING, ConfigChoices.nameOf(StaleGuardMode.AUTO),
                ConfigChoices.validator(StaleGuardMode.class), Importance.MEDIUM,
                "auto: a change older than what the destination already holds (by the source cluster time, or by "
                        + "version.field) is not applied, and a delete never removes a document re-inserted after it. "
                        + "Versions are kept in the '_tideline_versions' collection of the destination database; "
                        + "destination documents are never modified. off: apply every change in arrival order.",
                GROUP, ++order, Width.SHORT, "Stale-write guard", ConfigChoices.recommender(StaleGuardMode.class));
        def.define(VERSION_FIELD, Type.STRING, "", Importance.LOW,
                "Document field used as the version of a change that has no source cluster time (plain documents, "
                        + "date-scan copies), e.g. 'updatedAt'. Empty: such changes bypass the stale-write guard.",
                GROUP, ++order, Width.MEDIUM, "Version field");
        def.define(BULK_CHUNK_SIZE, Type.INT, MAX_BULK_CHUNK_SIZE, ConfigDef.Range.between(1, MAX_BULK_CHUNK_SIZE),
                Importance.LOW, "Largest number of writes sent in one unordered bulk write.",
                GROUP, ++order, Width.SHORT, "Bulk chunk size");
        def.define(SHARD_KEY_FIELDS, Type.LIST, "", SHARD_KEY_PATHS, Importance.MEDIUM,
                "The destination's shard key fields (dotted paths), added to the _id of every write filter. Empty "
                        + "(default): the shard key fields each change carries from its source documentKey, which is "
                        + "right when the destination is sharded like the source. When it is sharded differently, name "
                        + "its shard key here (e.g. region,customerId): writes take the values from the document, "
                        + "deletes those the change carries. Set _id for an unsharded destination fed by a sharded "
                        + "source whose shard key values change. Copies (backfill) carry no documentKey: on a sharded "
                        + "destination set this, or their upserts name no shard key.",
                GROUP, ++order, Width.LONG, "Destination shard key fields");
    }

    private static final ConfigDef.Validator SHARD_KEY_PATHS = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            for (Object o : (List<?>) value) {
                ShardKeys.pathProblem(String.valueOf(o).trim()).ifPresent(p -> {
                    throw new ConfigException(name, value, "field " + p);
                });
            }
        }

        @Override
        public String toString() {
            return "comma-separated field paths (a.b), none starting with $";
        }
    };

    public WriteMode writeMode() {
        return writeMode;
    }

    public TombstoneAction tombstoneAction() {
        return tombstoneAction;
    }

    public StaleGuardMode staleGuard() {
        return staleGuard;
    }

    /** The document field used as the version of changes without a cluster time; empty: none. */
    public Optional<String> versionField() {
        return versionField;
    }

    public int bulkChunkSize() {
        return bulkChunkSize;
    }

    /** The destination's shard key fields; empty: those each change carries. */
    public List<String> shardKeyFields() {
        return shardKeyFields;
    }
}
