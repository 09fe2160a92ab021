package dev.tideline.verify.cli;

import dev.tideline.event.Namespace;
import dev.tideline.peer.LogicalClock;
import dev.tideline.peer.RecoveryRule;
import dev.tideline.peer.RecoveryRule.Action;
import dev.tideline.peer.RecoveryRule.Decision;
import dev.tideline.peer.RecoveryRule.Rule;
import dev.tideline.peer.RecoveryRule.Side;
import dev.tideline.peer.Version;
import dev.tideline.peer.sink.RecoveryStore;
import dev.tideline.peer.sink.RecoveryStore.Read;
import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.Finding;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.report.ReportReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * {@code ./verify --peers --peer-recovery}: streams the report a peer run just wrote back and, for each missing,
 * extra or different id, reads both clusters' document and tombstone again, decides by {@link RecoveryRule} and
 * writes the decision on the losing cluster ({@link RecoveryStore}: conditionally, as the peer sink would). Each
 * decision is one JSON line in the decisions file: {@code {collection, id, rule, action, winner, outcome}}.
 */
final class PeerRecoveryRun {
    static final int BATCH = 500;
    private static final JsonWriterSettings JSON = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    /** What became of one decision. */
    enum Outcome {
        /** written on the losing cluster */
        APPLIED,
        /** --dry-run: would have been written on the losing cluster */
        PLANNED,
        /** nothing to write: the policy or a conflict leaves it to the operator */
        REPORTED,
        /** nothing to write: the two sides hold the same now */
        SETTLED,
        /** the losing (or winning) side changed since it was read: left to replication, or to the next run */
        CHANGED;

        String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final PeerRecoveryOptions options;
    private final RecoveryStore[] stores;
    private final Writer decisions;
    private final RecoveryTally tally = new RecoveryTally();
    private final Map<CollectionPair, List<BsonValue>> pending = new LinkedHashMap<>();

    PeerRecoveryRun(PeerRecoveryOptions options, RecoveryStore first, RecoveryStore second, Writer decisions) {
        this.options = options;
        this.stores = new RecoveryStore[] {first, second};
        this.decisions = decisions;
    }

    /** Reads {@code report} and decides its ids, a batch at a time. */
    RecoveryTally run(Path report) {
        ReportReader.read(report, this::accept, range -> {
            // ranges are the first look; the id lines after them are what the re-checks proved
        });
        new ArrayList<>(pending.keySet()).forEach(this::flush);
        return tally;
    }

    private void accept(Finding f) {
        if (f.kind() == FindingKind.IN_FLIGHT) {
            tally.inFlightLeftOut(f.collection());
            return; // still changing during the run: a link is moving it, recovery would race it
        }
        List<BsonValue> ids = pending.computeIfAbsent(f.collection(), k -> new ArrayList<>());
        ids.add(f.id());
        if (ids.size() >= BATCH) {
            flush(f.collection());
        }
    }

    private void flush(CollectionPair pair) {
        List<BsonValue> ids = pending.remove(pair);
        if (ids == null || ids.isEmpty()) {
            return;
        }
        Namespace[] ns = {pair.source(), pair.destination()};
        List<Map<BsonValue, Read>> reads = List.of(stores[0].read(ns[0], ids), stores[1].read(ns[1], ids));
        for (BsonValue id : ids) {
            Read[] read = {reads.get(0).get(id), reads.get(1).get(id)};
            Decision d = RecoveryRule.decide(side(0, read[0]), side(1, read[1]), options.policy());
            Outcome outcome = apply(d, ns, read);
            tally.add(pair, d, outcome);
            write(pair, id, d, outcome);
        }
    }

    private Side side(int i, Read r) {
        String cluster = stores[i].cluster();
        if (!r.present()) {
            return Side.absent(cluster, r.tombstone());
        }
        var d = r.detected();
        return d.stamp() != null ? new Side(cluster, d.content(), d.stamp().version(), null, r.tombstone())
                : new Side(cluster, d.content(), null, d.stale() == null ? null : d.stale().version(), r.tombstone());
    }

    private Outcome apply(Decision d, Namespace[] ns, Read[] read) {
        if (d.action() == Action.NONE) {
            return d.rule() == Rule.SAME ? Outcome.SETTLED : Outcome.REPORTED;
        }
        if (options.dryRun()) {
            return Outcome.PLANNED;
        }
        int w = d.winner();
        int l = d.loser();
        if (d.action() == Action.DELETE) {
            if (d.tombstone() != null) {
                return stores[l].delete(ns[l], read[l], d.tombstone()) ? Outcome.APPLIED : Outcome.CHANGED;
            }
            Version tomb = newVersion(w, read);
            if (!stores[l].delete(ns[l], read[l], tomb)) {
                return Outcome.CHANGED;
            }
            // the winner keeps the new delete's tombstone too, as its sink keeps one of every delete it learns of; a
            // tombstone written there meanwhile is newer than what this decision read, and stays
            stores[w].delete(ns[w], read[w], tomb);
            return Outcome.APPLIED;
        }
        BsonDocument doc = read[w].document();
        if (d.restamp()) {
            // a local write never replicated: given a version now, at its own cluster first, as its sink would have
            var detected = read[w].detected();
            doc = RecoveryStore.stamped(doc, detected.content(), newVersion(w, read),
                    detected.stale() == null ? null : detected.stale().version());
            if (!stores[w].write(ns[w], read[w], doc)) {
                return Outcome.CHANGED;
            }
        }
        return stores[l].write(ns[l], read[l], doc) ? Outcome.APPLIED : Outcome.CHANGED;
    }

    /**
     * A version made now at cluster {@code w}: its server's time, raised above every version either side shows for the
     * id (so it orders after all of them on every cluster, as a write made now does).
     */
    private Version newVersion(int w, Read[] read) {
        LogicalClock clock = new LogicalClock();
        for (Read r : read) {
            Stream.of(r.tombstone(), r.detected() == null ? null : r.detected().stamp() != null ? r.detected().stamp().version() : null,
                    r.detected() == null || r.detected().stale() == null ? null : r.detected().stale().version())
                    .filter(Objects::nonNull).map(Version::time).forEach(clock::observe);
        }
        BsonTimestamp now = stores[w].now();
        return new Version(clock.label(now, null), stores[w].cluster());
    }

    private void write(CollectionPair pair, BsonValue id, Decision d, Outcome outcome) {
        BsonDocument line = new BsonDocument("collection", new BsonString(pair.toString())).append("id", id)
                .append("rule", new BsonString(d.rule().wireName())).append("action", new BsonString(d.action().name()
                        .toLowerCase(java.util.Locale.ROOT))).append("outcome", new BsonString(outcome.wireName()));
        if (d.winner() >= 0) {
            line.append("winner", new BsonString(stores[d.winner()].cluster()));
        }
        try {
            decisions.write(line.toJson(JSON));
            decisions.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
