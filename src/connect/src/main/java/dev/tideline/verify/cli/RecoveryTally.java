package dev.tideline.verify.cli;

import dev.tideline.peer.RecoveryRule.Action;
import dev.tideline.peer.RecoveryRule.Decision;
import dev.tideline.peer.RecoveryRule.Rule;
import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.cli.PeerRecoveryRun.Outcome;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** Counts of a peer recovery by rule and outcome, and the summary line {@code ./verify} prints. */
final class RecoveryTally {
    private final Map<Rule, Map<Outcome, Integer>> counts = new EnumMap<>(Rule.class);
    private final Map<Action, Integer> ambiguous = new EnumMap<>(Action.class);
    private final Set<CollectionPair> collections = new LinkedHashSet<>();
    private int inFlight;

    void add(CollectionPair pair, Decision d, Outcome outcome) {
        collections.add(pair);
        counts.computeIfAbsent(d.rule(), r -> new EnumMap<>(Outcome.class)).merge(outcome, 1, Integer::sum);
        if (d.rule() == Rule.AMBIGUOUS && outcome != Outcome.CHANGED) {
            ambiguous.merge(d.action(), 1, Integer::sum);
        }
    }

    void inFlightLeftOut(CollectionPair pair) {
        collections.add(pair);
        inFlight++;
    }

    /** Ids decided by {@code rule} with {@code outcome}. */
    int count(Rule rule, Outcome outcome) {
        return counts.getOrDefault(rule, Map.of()).getOrDefault(outcome, 0);
    }

    /** Ids decided by one of {@code rules} and written (or, in a dry run, to be written). */
    private int applied(Rule... rules) {
        int n = 0;
        for (Rule r : rules) {
            n += count(r, Outcome.APPLIED) + count(r, Outcome.PLANNED);
        }
        return n;
    }

    private boolean dryRun() {
        return counts.values().stream().anyMatch(m -> m.containsKey(Outcome.PLANNED));
    }

    int changed() {
        int n = 0;
        for (Map<Outcome, Integer> m : counts.values()) {
            n += m.getOrDefault(Outcome.CHANGED, 0);
        }
        return n;
    }

    /** Ids still different after the recovery as far as it knows: reported, changed since, or left out in flight. */
    int leftDifferent() {
        int planned = 0;
        for (Map<Outcome, Integer> m : counts.values()) {
            planned += m.getOrDefault(Outcome.PLANNED, 0);
        }
        return count(Rule.AMBIGUOUS, Outcome.REPORTED) + count(Rule.CONFLICT, Outcome.REPORTED) + changed() + inFlight + planned;
    }

    String describe() {
        return (dryRun() ? "DRY RUN, nothing written: " : "") + String.format("peer recovery of %d collection(s): delete wins %d (%d newer tombstone, %d deleted by its origin); "
                        + "present wins %d (%d newer stamp, %d newer than the tombstone, %d local write after); ambiguous %d reported, "
                        + "%d copied, %d deleted; %d conflict(s) reported; %d skipped because changed since (left to replication); "
                        + "%d equal when read again; %d in flight left out",
                collections.size(), applied(Rule.NEWER_TOMBSTONE, Rule.DELETED_BY_ORIGIN), applied(Rule.NEWER_TOMBSTONE),
                applied(Rule.DELETED_BY_ORIGIN), applied(Rule.NEWER_STAMP, Rule.NEWER_THAN_TOMBSTONE, Rule.LOCAL_WRITE_AFTER),
                applied(Rule.NEWER_STAMP), applied(Rule.NEWER_THAN_TOMBSTONE), applied(Rule.LOCAL_WRITE_AFTER),
                ambiguous.getOrDefault(Action.NONE, 0), ambiguous.getOrDefault(Action.COPY, 0),
                ambiguous.getOrDefault(Action.DELETE, 0),
                count(Rule.CONFLICT, Outcome.REPORTED), changed(), count(Rule.SAME, Outcome.SETTLED), inFlight);
    }
}
