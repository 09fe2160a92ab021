package dev.tideline.verify.cli;

import com.mongodb.ConnectionString;
import dev.tideline.mongo.NameFilter;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.peer.PeerStamp;
import dev.tideline.verify.DocumentComparison;
import dev.tideline.verify.Hashing;
import dev.tideline.verify.VerifySettings;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line of {@code ./verify}, parsed into settings. Every mistake is named with its option
 * and what to write instead. Connection strings can come from the environment
 * ({@value #SOURCE_ENV}, {@value #DESTINATION_ENV}), which keeps passwords out of the process list.
 *
 * @param repair       {@code --repair}: after the run, feed the report's differences to the source connector as repair signals
 * @param peerRecovery {@code --peer-recovery} and its options: after a peer run, decide and write each differing id on
 *                     the losing cluster; null when not asked
 */
public record VerifyArguments(VerifySettings settings, String report, boolean quiet, boolean help, boolean repair,
                              PeerRecoveryOptions peerRecovery) {
    public static final String SOURCE_ENV = "TIDELINE_VERIFY_SOURCE";
    public static final String DESTINATION_ENV = "TIDELINE_VERIFY_DESTINATION";
    /** {@code --report -}: the report goes to standard output (and the human summary to standard error). */
    public static final String STDOUT = "-";

    public static final String USAGE = """
            Usage: ./verify --source URI --destination URI [options]
              Compares a destination (or a peer cluster) with its source, collection by collection, and lists
              the _ids that are missing, extra or different. Exit code: 0 equal, 1 differences, 2 writes still in
              flight at the last re-check, 3 verify could not compare everything (bad option, server error).

              --source URI, --destination URI   connection strings (or $%s and $%s)
              --peers                  the two sides are peer clusters: ignore the peer stamp _tl, compare the
                                       collections of both sides
              --database NAME          a source database to compare (repeat, or comma-separated); default: all
                                       but admin, config and local
              --destination-database NAME   the destination database of every source database (default: same name)
              --include REGEX, --exclude REGEX   db.collection names to compare or skip (repeatable)
              --ignore-field NAME      a top-level field to leave out of the comparison (repeatable)
              --ignore-field-order     equal fields in any order count as equal (pipelines with JSON records)
              --hashing auto|server|client   where range hashes are computed (default auto: by the servers
                                       where both can, else by reading both sides here)
              --range-size N           source documents per range (default %d)
              --batch-size N           documents per round trip when reading (default %d)
              --rechecks N             re-check rounds for ids that differ (default %d; 0 reports the first look)
              --recheck-delay SECONDS  wait after a look before re-checking it (default %s); longer than the
                                       pipeline's lag
              --connect-timeout SECONDS   how long a server may take to answer a connection (default %d)
              --report FILE|-          the JSON Lines report (default verify-<time>.jsonl here; - for stdout)
              --quiet                  print the result line only
              --repair                 after the run, have the source connector re-copy the missing, extra and different
                                       ids: inserts repair signals into <db>._tideline_signals at the source (needs a file --report)
              --peer-recovery report|copy|delete   with --peers, after the run: decide each differing id by the peer
                                       stamps and tombstones and write the winner on the losing cluster, as the peer
                                       sink would (docs/peer-recovery.md); the value is what to do with an id present on
                                       one side only that nothing decides: report it, copy it, or delete it
              --peer-ids A,B           with --peer-recovery: the peer.cluster.id of --source and of --destination
              --peer-key-file FILE     with --peer-recovery: a properties file with the link's peer.stamp.key (and
                                       peer.stamp.key.previous, peer.tombstone.ttl.ms when the link sets them)
              --dry-run                with --peer-recovery: decide every id and write the decisions file, but write
                                       nothing on either cluster
            """.formatted(SOURCE_ENV, DESTINATION_ENV, VerifySettings.DEFAULT_RANGE_SIZE, VerifySettings.DEFAULT_BATCH_SIZE,
            VerifySettings.DEFAULT_RECHECKS, VerifySettings.DEFAULT_RECHECK_DELAY_MS / 1000.0,
            VerifySettings.DEFAULT_CONNECT_TIMEOUT_MS / 1000);

    private static final Set<String> VALUE_OPTIONS = Set.of("--source", "--destination", "--database", "--destination-database",
            "--include", "--exclude", "--ignore-field", "--hashing", "--range-size", "--batch-size", "--rechecks", "--recheck-delay",
            "--connect-timeout", "--report", PeerRecoveryOptions.POLICY_OPTION, PeerRecoveryOptions.IDS_OPTION,
            PeerRecoveryOptions.KEY_FILE_OPTION);

    /** @throws IllegalArgumentException naming the option at fault and what it takes */
    public static VerifyArguments parse(String[] args, Map<String, String> env, Instant now) {
        String source = env.get(SOURCE_ENV);
        String destination = env.get(DESTINATION_ENV);
        boolean peers = false;
        List<String> databases = new ArrayList<>();
        String destinationDb = null;
        List<String> include = new ArrayList<>();
        List<String> exclude = new ArrayList<>();
        Set<String> ignored = new LinkedHashSet<>();
        boolean ignoreOrder = false;
        Hashing hashing = Hashing.AUTO;
        int rangeSize = VerifySettings.DEFAULT_RANGE_SIZE;
        int batchSize = VerifySettings.DEFAULT_BATCH_SIZE;
        int rechecks = VerifySettings.DEFAULT_RECHECKS;
        long delayMs = VerifySettings.DEFAULT_RECHECK_DELAY_MS;
        int timeoutMs = VerifySettings.DEFAULT_CONNECT_TIMEOUT_MS;
        String report = null;
        boolean quiet = false;
        boolean repair = false;
        String recoveryPolicy = null;
        String peerIds = null;
        String keyFile = null;
        boolean dryRun = false;
        for (int i = 0; i < args.length; i++) {
            String option = args[i];
            String inline = null;
            int eq = option.indexOf('=');
            if (option.startsWith("--") && eq > 0) {
                inline = option.substring(eq + 1);
                option = option.substring(0, eq);
            }
            switch (option) {
                case "--help", "-h" -> {
                    return new VerifyArguments(null, null, false, true, false, null);
                }
                case "--peers" -> peers = true;
                case "--ignore-field-order" -> ignoreOrder = true;
                case "--quiet" -> quiet = true;
                case "--repair" -> repair = true;
                case PeerRecoveryOptions.DRY_RUN_OPTION -> dryRun = true;
                default -> {
                    if (!VALUE_OPTIONS.contains(option)) {
                        throw new IllegalArgumentException("unknown option " + option + "; see --help");
                    }
                    String value = inline != null ? inline : i + 1 < args.length ? args[++i] : null;
                    if (value == null || value.isBlank()) {
                        throw new IllegalArgumentException(option + " needs a value" + hint(option));
                    }
                    switch (option) {
                        case "--source" -> source = value;
                        case "--destination" -> destination = value;
                        case "--database" -> databases.addAll(csv(value));
                        case "--destination-database" -> destinationDb = value;
                        case "--include" -> include.add(value);
                        case "--exclude" -> exclude.add(value);
                        case "--ignore-field" -> ignored.add(value);
                        case "--hashing" -> hashing = Hashing.parse(value);
                        case "--range-size" -> rangeSize = positive(option, value);
                        case "--batch-size" -> batchSize = positive(option, value);
                        case "--rechecks" -> rechecks = atLeastZero(option, value);
                        case "--recheck-delay" -> delayMs = millis(option, value);
                        case "--connect-timeout" -> timeoutMs = (int) Math.max(1, millis(option, value));
                        case "--report" -> report = value;
                        case PeerRecoveryOptions.POLICY_OPTION -> recoveryPolicy = value;
                        case PeerRecoveryOptions.IDS_OPTION -> peerIds = value;
                        case PeerRecoveryOptions.KEY_FILE_OPTION -> keyFile = value;
                        default -> throw new IllegalArgumentException("unknown option " + option + "; see --help");
                    }
                }
            }
        }
        if (source == null || source.isBlank()) {
            throw new IllegalArgumentException("--source is required (or set $" + SOURCE_ENV + "), e.g. --source mongodb://host:27017");
        }
        if (destination == null || destination.isBlank()) {
            throw new IllegalArgumentException("--destination is required (or set $" + DESTINATION_ENV
                    + "), e.g. --destination mongodb://host:27018");
        }
        checkConnectionString("--source", source);
        checkConnectionString("--destination", destination);
        if (ignoreOrder && hashing == Hashing.SERVER) {
            throw new IllegalArgumentException("--ignore-field-order needs --hashing client or auto: server hashes compare fields in order");
        }
        for (String db : databases) {
            if (db.contains(".") || db.contains("/") || db.contains(" ")) {
                throw new IllegalArgumentException("--database " + db + " is not a database name (no dots, slashes or spaces)");
            }
        }
        if (repair && peers) {
            // a signal re-copies the source's version to the destination: between peers that is not the rule
            throw new IllegalArgumentException("--repair does not work with --peers: re-copying one cluster's version would "
                    + "overwrite newer writes of the other; use --peer-recovery report|copy|delete with --peer-ids and "
                    + "--peer-key-file, which decides each id by its peer stamps (docs/peer-recovery.md)");
        }
        PeerRecoveryOptions peerRecovery = PeerRecoveryOptions.of(recoveryPolicy, peerIds, keyFile, peers, dryRun);
        if (peerRecovery != null && STDOUT.equals(report)) {
            throw new IllegalArgumentException(PeerRecoveryOptions.POLICY_OPTION + " needs the report in a file (--report FILE, "
                    + "or leave --report out): the ids are read back from it, and --report - sends it to standard output");
        }
        if (repair && STDOUT.equals(report)) {
            // the repair streams the ids back from the report file after the run; standard output cannot be read back
            throw new IllegalArgumentException("--repair needs the report in a file (--report FILE, or leave --report out): "
                    + "the repair signals are read back from it, and --report - sends it to standard output");
        }
        if (peers) {
            ignored.add(PeerStamp.FIELD);
        }
        NameFilter filter;
        try {
            filter = NameFilter.of("--include/--exclude", include, exclude);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (report == null) {
            report = "verify-" + DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(now) + ".jsonl";
        }
        VerifySettings settings = new VerifySettings(source, destination, peers, databases, filter, destinationDb,
                new DocumentComparison(ignored, ignoreOrder), hashing, rangeSize, batchSize, rechecks, delayMs, timeoutMs,
                Path.of(System.getProperty("java.io.tmpdir")));
        return new VerifyArguments(settings, report, quiet, false, repair, peerRecovery);
    }

    /** Names the option whose connection string the driver refuses, with the driver's reason, never the string. */
    private static void checkConnectionString(String option, String uri) {
        try {
            new ConnectionString(uri);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " is not a MongoDB connection string ("
                    + MongoClientFactory.redact(e.getMessage(), uri) + "): expected mongodb://[user:password@]host[:port][/?options] "
                    + "or mongodb+srv://...", e);
        }
    }

    private static String hint(String option) {
        return switch (option) {
            case "--source", "--destination" -> ", a connection string such as mongodb://host:27017";
            case "--hashing" -> ": auto, server or client";
            case "--recheck-delay", "--connect-timeout" -> ": seconds, e.g. 5 or 0.5";
            default -> "";
        };
    }

    private static List<String> csv(String value) {
        List<String> out = new ArrayList<>();
        for (String s : value.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }

    private static int positive(String option, String value) {
        int n = integer(option, value);
        if (n < 1) {
            throw new IllegalArgumentException(option + " must be at least 1, got " + value);
        }
        return n;
    }

    private static int atLeastZero(String option, String value) {
        int n = integer(option, value);
        if (n < 0) {
            throw new IllegalArgumentException(option + " must be 0 or more, got " + value);
        }
        return n;
    }

    private static int integer(String option, String value) {
        try {
            return Integer.parseInt(value.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a whole number, got '" + value + "'", e);
        }
    }

    private static long millis(String option, String seconds) {
        try {
            double s = Double.parseDouble(seconds.trim());
            if (s < 0 || Double.isNaN(s) || Double.isInfinite(s)) {
                throw new NumberFormatException("negative");
            }
            return Math.round(s * 1000);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes seconds (0 or more, e.g. 5 or 0.5), got '" + seconds + "'", e);
        }
    }
}
