package dev.tideline.verify.cli;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import dev.tideline.source.repair.RepairSignals;
import dev.tideline.verify.cli.RepairSignalBatcher.CollectionRepair;
import dev.tideline.verify.cli.RepairSignalBatcher.Signal;
import dev.tideline.verify.report.ReportReader;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * {@code ./verify --repair}: streams the report a run just wrote back and inserts repair signals,
 * {@code {collection, ids, by, at, report}}, into {@code <source db>._tideline_signals} on the source,
 * where the source connector picks them up and re-copies those ids while streaming. The report, not
 * the run's memory, is the input: it holds every id however many there are.
 */
final class RepairSignalWriter {
    /** Where the source connector reads its signals. */
    private static final String SIGNALS_COLLECTION = RepairSignals.COLLECTION;
    /** Who asked, for an operator reading the signals collection; the connector ignores it. */
    static final String BY = "tideline-verify";

    /** Inserting a signal failed; names the database whose signals collection refused it. */
    static final class SignalInsertException extends RuntimeException {
        private final String database;

        SignalInsertException(String database, MongoException cause) {
            super(cause.getMessage(), cause);
            this.database = database;
        }

        /** {@code <db>._tideline_signals}: where the user needs insert. */
        String signalsNamespace() {
            return database + "." + SIGNALS_COLLECTION;
        }
    }

    private final MongoClient source;
    private final Instant at;
    private final String reportName;
    private int written;

    /**
     * @param at         written into every signal of this run, so its signals can be told apart
     * @param reportName the report's file name, so a signal leads back to the report it came from
     */
    RepairSignalWriter(MongoClient source, Instant at, String reportName) {
        this.source = source;
        this.at = at;
        this.reportName = reportName;
    }

    /**
     * Reads {@code report} and inserts its signals as they fill.
     *
     * @throws SignalInsertException when the source refuses a signal (the ones before it are written)
     * @throws java.io.UncheckedIOException or IllegalArgumentException when the report cannot be read
     */
    List<CollectionRepair> write(Path report) {
        RepairSignalBatcher batcher = new RepairSignalBatcher(this::insert);
        ReportReader.read(report, batcher::accept, range -> {
            // ranges are the first look; the id lines after them are what the re-checks proved
        });
        return batcher.finish();
    }

    /** Signals inserted so far, also when a later one failed. */
    int written() {
        return written;
    }

    private void insert(Signal signal) {
        String db = signal.collection().db();
        try {
            source.getDatabase(db).getCollection(SIGNALS_COLLECTION, BsonDocument.class).insertOne(document(signal, at, reportName));
        } catch (MongoException e) {
            throw new SignalInsertException(db, e);
        }
        written++;
    }

    /** The signal document; {@code _id} is left to the driver. */
    static BsonDocument document(Signal signal, Instant at, String reportName) {
        return new BsonDocument("collection", new BsonString(signal.collection().coll()))
                .append("ids", new BsonArray(signal.ids()))
                .append("by", new BsonString(BY))
                .append("at", new BsonDateTime(at.toEpochMilli()))
                .append("report", new BsonString(reportName));
    }
}
