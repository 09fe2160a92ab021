package dev.tideline.verify.mongo;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import dev.tideline.event.Namespace;
import dev.tideline.mongo.MongoClientFactory;
import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.CollectionSummary;
import dev.tideline.verify.CollectionTally;
import dev.tideline.verify.Outcome;
import dev.tideline.verify.RunResult;
import dev.tideline.verify.VerifyListener;
import dev.tideline.verify.VerifySettings;
import dev.tideline.verify.report.ReportFormat;
import dev.tideline.verify.report.ReportLine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;

/**
 * One verify run: lists the collections to compare, takes a first look at each ({@link CollectionPass}),
 * re-checks the ids that differed ({@link Rechecker}) and writes the report as it goes: a header,
 * the ranges that differed, the ids, one line per collection and a summary. A collection that fails
 * is reported as failed and the others still run; credentials refused or a server out of reach stop
 * the run.
 */
public final class Verifier implements AutoCloseable {
    private static final String APP_NAME = "tideline-verify";

    private final VerifySettings settings;
    private final VerifyListener listener;
    private final Consumer<ReportLine> report;
    private final String sourceSide;
    private final String destinationSide;
    private final MongoClient sourceClient;
    private final MongoClient destinationClient;
    private final Retrier retrier;

    /** @param report receives each line of the report, in order */
    public Verifier(VerifySettings settings, VerifyListener listener, Consumer<ReportLine> report) {
        this(settings, listener, report, Retrier.FIRST_BACKOFF_MS);
    }

    /** @param firstBackoffMs the first wait before retrying a transient failure (doubling each time) */
    Verifier(VerifySettings settings, VerifyListener listener, Consumer<ReportLine> report, long firstBackoffMs) {
        this.settings = settings;
        this.listener = listener;
        this.report = report;
        this.sourceSide = settings.peers() ? "first peer" : "source";
        this.destinationSide = settings.peers() ? "second peer" : "destination";
        this.retrier = new Retrier(listener, Map.of(sourceSide, settings.sourceUri(), destinationSide, settings.destinationUri()),
                firstBackoffMs);
        MongoClient src = MongoClientFactory.create(settings.sourceUri(), APP_NAME, settings.connectTimeoutMs());
        try {
            this.destinationClient = MongoClientFactory.create(settings.destinationUri(), APP_NAME, settings.connectTimeoutMs());
        } catch (RuntimeException e) {
            src.close();
            throw e;
        }
        this.sourceClient = src;
    }

    public RunResult run() {
        long started = System.currentTimeMillis();
        report.accept(ReportFormat.header(new ReportFormat.RunDescription(Instant.ofEpochMilli(started),
                MongoClientFactory.hostsOf(settings.sourceUri()), MongoClientFactory.hostsOf(settings.destinationUri()),
                settings.peers(), settings.comparison().describe(), settings.hashing().wireName(), settings.rangeSize(),
                settings.rechecks(), settings.recheckDelayMs())));
        List<CollectionTally> tallies = new ArrayList<>();
        String failure = null;
        try (CandidateSpool spool = CandidateSpool.create(settings.spoolDirectory())) {
            List<Rechecker.Sides> sides = new ArrayList<>();
            for (CollectionPair pair : collections()) {
                CollectionTally tally = new CollectionTally(pair, System.currentTimeMillis());
                tallies.add(tally);
                Side src = side(sourceSide, sourceClient, pair.source());
                Side dst = side(destinationSide, destinationClient, pair.destination());
                sides.add(new Rechecker.Sides(pair, src, dst, tally));
                try {
                    new CollectionPass(settings, retrier, listener, r -> report.accept(ReportFormat.range(pair, r)), spool,
                            sides.size() - 1, pair, src, dst, tally).run();
                } catch (VerifyFailure f) {
                    if (f.wholeRun()) {
                        throw f;
                    }
                    tally.failed(f.getMessage());
                }
                tally.passDone(System.currentTimeMillis());
                listener.passed(tally.summary());
            }
            new Rechecker(settings, retrier, listener, sides, f -> report.accept(ReportFormat.finding(f))).run(spool);
        } catch (VerifyFailure f) {
            // the whole run stopped: what was counted so far is reported, under a failed outcome
            failure = f.getMessage();
        }
        List<CollectionSummary> summaries = tallies.stream().map(CollectionTally::summary).toList();
        summaries.forEach(c -> report.accept(ReportFormat.collection(c)));
        List<Outcome> outcomes = new ArrayList<>(summaries.stream().map(CollectionSummary::outcome).toList());
        if (failure != null) {
            outcomes.add(Outcome.FAILED);
        }
        Outcome outcome = Outcome.worst(outcomes);
        long millis = System.currentTimeMillis() - started;
        report.accept(ReportFormat.summary(summaries, outcome, millis, Instant.now(), failure));
        return new RunResult(summaries, outcome, millis, failure);
    }

    /** The collections to compare, sorted: the source's (and in peer mode the second peer's too). */
    List<CollectionPair> collections() {
        TreeSet<String> names = new TreeSet<>();
        for (String db : databases()) {
            String destinationDb = settings.destinationDatabase() == null ? db : settings.destinationDatabase();
            names.addAll(retrier.call(sourceSide, "listing the collections of " + db, () -> list(sourceClient, db, db)));
            if (settings.peers()) {
                names.addAll(retrier.call(destinationSide, "listing the collections of " + destinationDb,
                        () -> list(destinationClient, destinationDb, db)));
            }
        }
        List<CollectionPair> pairs = new ArrayList<>();
        for (String full : names) {
            Namespace source = Namespace.parse(full);
            String destinationDb = settings.destinationDatabase() == null ? source.db() : settings.destinationDatabase();
            pairs.add(new CollectionPair(source, new Namespace(destinationDb, source.coll())));
        }
        return pairs;
    }

    private List<String> databases() {
        if (!settings.databases().isEmpty()) {
            return settings.databases();
        }
        List<String> all = new ArrayList<>();
        retrier.call(sourceSide, "listing databases", () -> sourceClient.listDatabaseNames().into(new ArrayList<>())).stream()
                .filter(db -> !List.of("admin", "config", "local").contains(db)).sorted().forEach(all::add);
        return all;
    }

    /**
     * The plain collections of {@code db} (views and time-series are never captured), without
     * system and Tideline collections, named as the source's {@code sourceDb.coll}, filtered.
     */
    private List<String> list(MongoClient client, String db, String sourceDb) {
        List<String> out = new ArrayList<>();
        for (BsonDocument c : client.getDatabase(db).listCollections(BsonDocument.class)) {
            String name = c.getString("name").getValue();
            String type = c.containsKey("type") ? c.getString("type").getValue() : "collection";
            String full = sourceDb + "." + name;
            if ("collection".equals(type) && !name.startsWith("system.") && !name.startsWith("_tideline")
                    && settings.collections().accepts(full)) {
                out.add(full);
            }
        }
        return out;
    }

    private Side side(String name, MongoClient client, Namespace ns) {
        MongoCollection<RawBsonDocument> coll = client.getDatabase(ns.db()).getCollection(ns.coll(), RawBsonDocument.class);
        return new CollectionSide(name, coll, settings.comparison().ignoredFields(), settings.batchSize());
    }

    @Override
    public void close() {
        MongoClientFactory.closeWithin(sourceClient, 2_000);
        MongoClientFactory.closeWithin(destinationClient, 2_000);
    }
}
