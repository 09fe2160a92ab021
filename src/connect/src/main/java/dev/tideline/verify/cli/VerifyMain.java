package dev.tideline.verify.cli;

import com.mongodb.client.MongoClient;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.peer.sink.RecoveryStore;
import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.CollectionSummary;
import dev.tideline.verify.Outcome;
import dev.tideline.verify.RunResult;
import dev.tideline.verify.VerifyListener;
import dev.tideline.verify.cli.RepairSignalBatcher.CollectionRepair;
import dev.tideline.verify.mongo.Verifier;
import dev.tideline.verify.report.ReportLine;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * {@code ./verify}: compares a destination (or a peer cluster) with its source once, prints a line per
 * collection and a result line, writes the JSON Lines report, and exits 0 (equal), 1 (differences),
 * 2 (writes still in flight at the last re-check) or 3 (could not compare everything). With {@code --repair}
 * it then feeds the report's differences to the source connector as repair signals ({@link RepairSignalWriter}),
 * and exits 3 if it could not. With {@code --peers --peer-recovery} it decides each differing id between the two peers
 * and writes the decisions on the losing cluster ({@link PeerRecoveryRun}), and exits 3 if it could not finish.
 */
public final class VerifyMain {
    /** As the comparison's connections: the server's logs and currentOp name the tool. */
    private static final String APP_NAME = "tideline-verify";

    private VerifyMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    /** The command, with its streams and environment given: returns the exit code. */
    public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        VerifyArguments arguments;
        try {
            arguments = VerifyArguments.parse(args, env, Instant.now());
        } catch (IllegalArgumentException e) {
            err.println("verify: " + e.getMessage());
            return Outcome.FAILED.exitCode();
        }
        if (arguments.help()) {
            out.print(VerifyArguments.USAGE);
            return Outcome.EQUAL.exitCode();
        }
        boolean reportToStdout = VerifyArguments.STDOUT.equals(arguments.report());
        PrintStream human = reportToStdout ? err : out;
        RunResult result;
        try (Writer report = openReport(arguments.report(), out);
             Verifier verifier = new Verifier(arguments.settings(), listener(err, human, arguments.quiet()), line -> write(report, line))) {
            result = verifier.run();
            report.flush();
            if (!arguments.quiet()) {
                result.collections().forEach(c -> human.println(c.describe()));
            }
            human.println(result.describe() + (reportToStdout ? "" : "; report: " + arguments.report()));
        } catch (IOException | UncheckedIOException e) {
            err.println("verify: cannot write the report " + arguments.report() + ": " + e.getMessage());
            return Outcome.FAILED.exitCode();
        } catch (ConfigException e) {
            // a connection string that does not parse: named by its option, never echoed
            err.println("verify: " + e.getMessage().replace(MongoClientFactory.URI_KEY, "--source/--destination"));
            return Outcome.FAILED.exitCode();
        }
        // after the report is closed: the repair reads it back. A repair that fails is exit 3, since what
        // was asked was not done; otherwise the exit code is the comparison's, as without --repair.
        if (arguments.repair() && !repair(arguments, human, err)) {
            return Outcome.FAILED.exitCode();
        }
        if (arguments.peerRecovery() != null && !recover(arguments, human, err)) {
            return Outcome.FAILED.exitCode();
        }
        return result.outcome().exitCode();
    }

    /**
     * Decides the report's ids between the two peers and writes each decision on the losing cluster; prints the counts
     * (also with --quiet: they say what was written). Returns false when it could not finish.
     */
    private static boolean recover(VerifyArguments arguments, PrintStream human, PrintStream err) {
        PeerRecoveryOptions o = arguments.peerRecovery();
        Path report = Path.of(arguments.report());
        Path decisions = decisionsFile(report);
        String firstUri = arguments.settings().sourceUri();
        String secondUri = arguments.settings().destinationUri();
        int timeout = arguments.settings().connectTimeoutMs();
        try (MongoClient first = MongoClientFactory.create(firstUri, APP_NAME, timeout);
             MongoClient second = MongoClientFactory.create(secondUri, APP_NAME, timeout);
             Writer out = Files.newBufferedWriter(decisions, StandardCharsets.UTF_8)) {
            PeerRecoveryRun run = new PeerRecoveryRun(o, new RecoveryStore(first, o.first(), o.keys(), o.tombstoneTtlMs()),
                    new RecoveryStore(second, o.second(), o.keys(), o.tombstoneTtlMs()), out);
            RecoveryTally tally = run.run(report);
            out.flush();
            human.println("verify: " + tally.describe() + "; decisions: " + decisions);
            if (tally.leftDifferent() > 0) {
                human.printf("verify: %,d id(s) left as they are (see the decisions file); run verify again once they are "
                        + "settled%n", tally.leftDifferent());
            }
            return true;
        } catch (IOException | UncheckedIOException e) {
            err.println("verify: peer recovery could not read the report or write " + decisions + ": " + e.getMessage());
        } catch (com.mongodb.MongoException e) {
            err.println("verify: peer recovery stopped: " + MongoClientFactory.redact(MongoClientFactory.redact(e.getMessage(),
                    firstUri), secondUri) + ". The user needs find, insert, update and remove on the compared collections and on "
                    + "<db>._tideline_peer_tombstones of both clusters; the decisions written so far are in " + decisions);
        } catch (IllegalArgumentException e) {
            err.println("verify: peer recovery could not read the report: " + e.getMessage());
        }
        return false;
    }

    /** {@code verify-x.jsonl} -> {@code verify-x-recovery.jsonl}, beside the report. */
    static Path decisionsFile(Path report) {
        String name = String.valueOf(report.getFileName());
        String base = name.endsWith(".jsonl") ? name.substring(0, name.length() - ".jsonl".length()) : name;
        return report.resolveSibling(base + "-recovery.jsonl");
    }

    /**
     * Inserts the repair signals for the report's missing, extra and different ids and prints a line per
     * collection (also with --quiet: they say what was written to the source). Returns false when it failed.
     */
    private static boolean repair(VerifyArguments arguments, PrintStream human, PrintStream err) {
        String uri = arguments.settings().sourceUri();
        Path report = Path.of(arguments.report());
        List<CollectionRepair> repairs;
        RepairSignalWriter writer = null;
        try (MongoClient source = MongoClientFactory.create(uri, APP_NAME, arguments.settings().connectTimeoutMs())) {
            writer = new RepairSignalWriter(source, Instant.now(), String.valueOf(report.getFileName()));
            repairs = writer.write(report);
        } catch (RepairSignalWriter.SignalInsertException e) {
            err.println("verify: could not write repair signals: " + MongoClientFactory.redact(e.getMessage(), uri)
                    + ". The user needs insert on " + e.signalsNamespace() + ".");
            if (writer != null && writer.written() > 0) {
                err.println("verify: " + writer.written() + " repair signal(s) were written before that; writing them again "
                        + "(another --repair run) only re-copies those ids once more");
            }
            return false;
        } catch (UncheckedIOException | IllegalArgumentException e) {
            err.println("verify: could not write repair signals: " + e.getMessage());
            return false;
        }
        boolean any = false;
        for (CollectionRepair r : repairs) {
            String inFlight = r.inFlightLeftOut() == 0 ? "" : String.format("%,d in-flight id(s) left out (they were changing "
                    + "during the run: the stream carries their change)", r.inFlightLeftOut());
            if (r.ids() > 0) {
                any = true;
                human.printf("verify: repair signal(s) for %s: %,d ids in %d signal(s)%s%n", r.collection(), r.ids(), r.signals(),
                        inFlight.isEmpty() ? "" : "; " + inFlight);
            } else {
                human.printf("verify: no repair signal for %s: %s%n", r.collection(), inFlight);
            }
        }
        if (!any) {
            human.println("verify: no repair signals written: no missing, extra or different ids");
        }
        return true;
    }

    private static VerifyListener listener(PrintStream err, PrintStream human, boolean quiet) {
        return new VerifyListener() {
            @Override
            public void note(String message) {
                if (!quiet) {
                    err.println("verify: " + message);
                }
            }

            @Override
            public void progress(CollectionPair collection, long documents, long candidates) {
                if (!quiet) {
                    err.printf("verify: %s: %,d documents compared, %,d ids differ so far%n", collection, documents, candidates);
                }
            }

            @Override
            public void passed(CollectionSummary collection) {
                if (!quiet) {
                    err.println("verify: " + collection.describePass());
                }
            }
        };
    }

    private static Writer openReport(String report, PrintStream out) throws IOException {
        if (VerifyArguments.STDOUT.equals(report)) {
            return new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8)) {
                @Override
                public void close() throws IOException {
                    flush(); // standard output stays open
                }
            };
        }
        Path path = Path.of(report);
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        return Files.newBufferedWriter(path, StandardCharsets.UTF_8);
    }

    private static void write(Writer report, ReportLine line) {
        try {
            report.write(line.json());
            report.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
