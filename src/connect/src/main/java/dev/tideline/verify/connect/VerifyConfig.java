package dev.tideline.verify.connect;

import dev.tideline.mongo.NameFilter;
import dev.tideline.config.Validators;
import dev.tideline.peer.PeerStamp;
import dev.tideline.verify.DocumentComparison;
import dev.tideline.verify.Hashing;
import dev.tideline.verify.VerifySettings;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;

/**
 * The scheduled verify connector's settings: what to compare (the same choices as the command's
 * options) and when. Both connection strings are PASSWORDs: Connect masks them in REST answers and logs.
 */
public final class VerifyConfig extends AbstractConfig {
    public static final String COMPARE = "Compare";
    public static final String SCHEDULE = "Schedule";

    public static final String SOURCE_URI = "verify.source.uri";
    public static final String DESTINATION_URI = "verify.destination.uri";
    public static final String PEERS = "verify.peers";
    public static final String DATABASES = "verify.databases";
    public static final String DESTINATION_DATABASE = "verify.destination.database";
    public static final String INCLUDE = "verify.collection.include";
    public static final String EXCLUDE = "verify.collection.exclude";
    public static final String IGNORE_FIELDS = "verify.ignore.fields";
    public static final String IGNORE_FIELD_ORDER = "verify.ignore.field.order";
    public static final String HASHING = "verify.hashing";
    public static final String RANGE_SIZE = "verify.range.size";
    public static final String BATCH_SIZE = "verify.batch.size";
    public static final String RECHECKS = "verify.rechecks";
    public static final String RECHECK_DELAY_MS = "verify.recheck.delay.ms";
    public static final String CONNECT_TIMEOUT_MS = "verify.connect.timeout.ms";
    public static final String INTERVAL_MS = "verify.interval.ms";
    public static final String REPORT_TOPIC = "verify.report.topic";
    public static final String SPOOL_DIR = "verify.spool.dir";

    public static final ConfigDef CONFIG_DEF = define();

    public VerifyConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
        if (getBoolean(IGNORE_FIELD_ORDER) && Hashing.parse(getString(HASHING)) == Hashing.SERVER) {
            throw new ConfigException(IGNORE_FIELD_ORDER, "true", "server hashing compares fields in order: set "
                    + HASHING + " to auto or client to ignore the order");
        }
    }

    private static ConfigDef define() {
        ConfigDef def = new ConfigDef();
        int order = 0;
        def.define(SOURCE_URI, Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonNullValidator(), Importance.HIGH,
                "Connection string of the source MongoDB (or the first peer cluster). Masked in the REST API and logs. "
                        + "Verify only reads: a user with the read role on the compared databases is enough.",
                COMPARE, ++order, Width.LONG, "Source URI");
        def.define(DESTINATION_URI, Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonNullValidator(), Importance.HIGH,
                "Connection string of the destination MongoDB (or the second peer cluster). Masked in the REST API and logs.",
                COMPARE, ++order, Width.LONG, "Destination URI");
        def.define(PEERS, Type.BOOLEAN, false, Importance.MEDIUM,
                "The two sides are peer clusters: the peer stamp (" + PeerStamp.FIELD + ") is left out of the comparison "
                        + "and the collections of both sides are compared.", COMPARE, ++order, Width.SHORT, "Peers");
        def.define(DATABASES, Type.LIST, "", Importance.HIGH,
                "Source databases to compare. Empty: every database but admin, config and local.",
                COMPARE, ++order, Width.LONG, "Databases");
        def.define(DESTINATION_DATABASE, Type.STRING, "", Importance.MEDIUM,
                "The destination database that holds every compared source database's collections (a sink's "
                        + "'database'). Empty: the same name as at the source.", COMPARE, ++order, Width.MEDIUM, "Destination database");
        def.define(INCLUDE, Type.LIST, "", Validators.regexList(), Importance.MEDIUM,
                "Java regular expressions matched against the whole <database>.<collection> name; empty: every collection. "
                        + "system.* collections, views and Tideline's own collections (_tideline*) are never compared.",
                COMPARE, ++order, Width.LONG, "Collections to compare");
        def.define(EXCLUDE, Type.LIST, "", Validators.regexList(), Importance.LOW,
                "Regular expressions of <database>.<collection> names to leave out.", COMPARE, ++order, Width.LONG, "Collections to skip");
        def.define(IGNORE_FIELDS, Type.LIST, "", Importance.LOW,
                "Top-level fields left out of the comparison (e.g. a field only the destination's application writes).",
                COMPARE, ++order, Width.LONG, "Ignored fields");
        def.define(IGNORE_FIELD_ORDER, Type.BOOLEAN, false, Importance.LOW,
                "Documents with the same fields, types and values in another order count as equal: for pipelines whose "
                        + "records carry documents as JSON maps (output.format=json), which do not keep the order. Needs client "
                        + "hashing (auto picks it).", COMPARE, ++order, Width.SHORT, "Ignore field order");
        def.define(HASHING, Type.STRING, Hashing.AUTO.wireName(), Validators.oneOf("auto", "server", "client"), Importance.MEDIUM,
                "Where range hashes are computed. auto: by both servers where both offer $toHashedIndexKey (one small "
                        + "reply per range and side), else by reading both sides here; server: by the servers or the collection "
                        + "fails; client: always read both sides and compare byte for byte (sees a double that changed within "
                        + "the same integer, which hashed-index hashes do not).", COMPARE, ++order, Width.SHORT, "Hashing");
        def.define(RANGE_SIZE, Type.INT, VerifySettings.DEFAULT_RANGE_SIZE, ConfigDef.Range.between(1, 10_000_000), Importance.LOW,
                "Source documents per _id range: the unit hashed, reported and re-copied.", COMPARE, ++order, Width.SHORT, "Range size");
        def.define(BATCH_SIZE, Type.INT, VerifySettings.DEFAULT_BATCH_SIZE, ConfigDef.Range.between(1, 100_000), Importance.LOW,
                "Documents per round trip when documents are read.", COMPARE, ++order, Width.SHORT, "Batch size");
        def.define(RECHECKS, Type.INT, VerifySettings.DEFAULT_RECHECKS, ConfigDef.Range.between(0, 100), Importance.MEDIUM,
                "Re-check rounds for ids that differ at the first look: one that is equal on a re-check was in flight; "
                        + "one that differs with neither side changed since the previous look is a difference; one still changing "
                        + "after the last round is reported in flight. 0 reports the first look.", COMPARE, ++order, Width.SHORT, "Re-checks");
        def.define(RECHECK_DELAY_MS, Type.LONG, VerifySettings.DEFAULT_RECHECK_DELAY_MS, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "How long after a look its re-check waits. Longer than the pipeline's lag (the sink task's LagMillis), "
                        + "or a change still on its way looks like a difference.", COMPARE, ++order, Width.SHORT, "Re-check delay (ms)");
        def.define(CONNECT_TIMEOUT_MS, Type.INT, VerifySettings.DEFAULT_CONNECT_TIMEOUT_MS, ConfigDef.Range.between(100, 300_000),
                Importance.LOW, "How long connecting to, or selecting, a server may take before the attempt fails (and is retried).",
                COMPARE, ++order, Width.SHORT, "Connect timeout (ms)");
        order = 0;
        def.define(INTERVAL_MS, Type.LONG, 3_600_000L, ConfigDef.Range.atLeast(1_000), Importance.HIGH,
                "Time from the start of one run to the start of the next (a run that takes longer is followed at once). "
                        + "The last run's start is kept in the connector's offsets, so a restart does not run early.",
                SCHEDULE, ++order, Width.SHORT, "Interval (ms)");
        def.define(REPORT_TOPIC, Type.STRING, "tideline.verify.report", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                "Topic each run's report goes to, one record per line (the same JSON lines as the command's report file; key: "
                        + "the source namespace, or none). Use StringConverter for keys and values.",
                SCHEDULE, ++order, Width.MEDIUM, "Report topic");
        def.define(SPOOL_DIR, Type.STRING, "", Importance.LOW,
                "Where ids wait for their re-checks during a run (a file, deleted after the run). Empty: the JVM's temp directory.",
                SCHEDULE, ++order, Width.MEDIUM, "Spool directory");
        return def;
    }

    public long intervalMs() {
        return getLong(INTERVAL_MS);
    }

    public String reportTopic() {
        return getString(REPORT_TOPIC).trim();
    }

    public VerifySettings settings() {
        boolean peers = getBoolean(PEERS);
        Set<String> ignored = new LinkedHashSet<>(clean(getList(IGNORE_FIELDS)));
        if (peers) {
            ignored.add(PeerStamp.FIELD);
        }
        String destinationDb = getString(DESTINATION_DATABASE).trim();
        String spool = getString(SPOOL_DIR).trim();
        return new VerifySettings(getPassword(SOURCE_URI).value(), getPassword(DESTINATION_URI).value(), peers, clean(getList(DATABASES)),
                NameFilter.of(INCLUDE, getList(INCLUDE), getList(EXCLUDE)), destinationDb.isEmpty() ? null : destinationDb,
                new DocumentComparison(ignored, getBoolean(IGNORE_FIELD_ORDER)), Hashing.parse(getString(HASHING)),
                getInt(RANGE_SIZE), getInt(BATCH_SIZE), getInt(RECHECKS), getLong(RECHECK_DELAY_MS), getInt(CONNECT_TIMEOUT_MS),
                Path.of(spool.isEmpty() ? System.getProperty("java.io.tmpdir") : spool));
    }

    private static List<String> clean(List<String> values) {
        return values.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
