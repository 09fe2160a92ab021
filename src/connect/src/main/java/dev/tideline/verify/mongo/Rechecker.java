package dev.tideline.verify.mongo;

import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.CollectionTally;
import dev.tideline.verify.DocumentComparison;
import dev.tideline.verify.Finding;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.Observation;
import dev.tideline.verify.RecheckPolicy;
import dev.tideline.verify.VerifyListener;
import dev.tideline.verify.VerifySettings;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * Reads the candidates again, by {@code _id} on both sides, in rounds ({@link RecheckPolicy}): each
 * look waits until {@code recheckDelayMs} after the previous one; what settles is counted, what stays
 * different with nothing moving is a finding, what still moves goes to the next round, and after the
 * last round is reported as in flight. Candidates are read in batches from a spool, so memory does
 * not grow with their number.
 */
final class Rechecker {
    static final int BATCH = 500;

    /** The two sides of each collection of the run, by index. */
    record Sides(CollectionPair pair, Side source, Side destination, CollectionTally tally) {
    }

    private final VerifySettings settings;
    private final Retrier retrier;
    private final VerifyListener listener;
    private final List<Sides> sides;
    private final Consumer<Finding> findings;

    Rechecker(VerifySettings settings, Retrier retrier, VerifyListener listener, List<Sides> sides, Consumer<Finding> findings) {
        this.settings = settings;
        this.retrier = retrier;
        this.listener = listener;
        this.sides = sides;
        this.findings = findings;
    }

    /** Settles every candidate of {@code spool} (which it closes) into findings and counts. */
    void run(CandidateSpool spool) {
        CandidateSpool current = spool;
        try {
            if (settings.rechecks() == 0) {
                current.read().forEachRemaining(c -> report(c, c.seenAs(), false)); // no re-read: the cause stays unknown
                return;
            }
            for (int round = 1; round <= settings.rechecks() && current.count() > 0; round++) {
                listener.note(String.format("re-check %d of %d: %,d id(s), %d ms after their last look",
                        round, settings.rechecks(), current.count(), settings.recheckDelayMs()));
                CandidateSpool next = CandidateSpool.create(settings.spoolDirectory());
                try {
                    boolean last = round == settings.rechecks();
                    Iterator<Candidate> it = current.read();
                    List<Candidate> batch = new ArrayList<>(BATCH);
                    while (it.hasNext()) {
                        Candidate c = it.next();
                        if (!batch.isEmpty() && (batch.size() == BATCH || batch.get(0).collection() != c.collection())) {
                            recheck(batch, last, next);
                            batch.clear();
                        }
                        batch.add(c);
                    }
                    if (!batch.isEmpty()) {
                        recheck(batch, last, next);
                    }
                } catch (RuntimeException e) {
                    next.close();
                    throw e;
                }
                current.close();
                current = next;
            }
        } finally {
            current.close();
        }
    }

    private void recheck(List<Candidate> batch, boolean lastRound, CandidateSpool next) {
        long due = batch.stream().mapToLong(Candidate::observedAtMs).max().orElse(0) + settings.recheckDelayMs();
        sleepUntil(due);
        Sides s = sides.get(batch.get(0).collection());
        List<BsonValue> ids = batch.stream().map(Candidate::id).toList();
        Map<BsonValue, RawBsonDocument> atSource = retrier.call(s.source().name(), "re-reading " + ids.size() + " ids of "
                + s.source().namespace(), () -> s.source().lookup(ids));
        Map<BsonValue, RawBsonDocument> atDestination = retrier.call(s.destination().name(), "re-reading " + ids.size() + " ids of "
                + s.destination().namespace(), () -> s.destination().lookup(ids));
        long now = System.currentTimeMillis();
        DocumentComparison comparison = settings.comparison();
        for (Candidate c : batch) {
            RawBsonDocument src = atSource.get(c.id());
            RawBsonDocument dst = atDestination.get(c.id());
            Observation seen = new Observation(src == null ? null : comparison.fingerprint(src),
                    dst == null ? null : comparison.fingerprint(dst));
            switch (RecheckPolicy.judge(c.observation(), seen)) {
                case SETTLED -> s.tally().settled();
                case DIFFERENT -> report(c, seen.kind(), src != null && dst != null && comparison.differInFieldOrderOnly(src, dst));
                case UNSETTLED -> {
                    if (lastRound) {
                        Finding f = new Finding(FindingKind.IN_FLIGHT, s.pair(), c.id(), seen.kind());
                        s.tally().finding(FindingKind.IN_FLIGHT);
                        findings.accept(f);
                    } else {
                        next.add(new Candidate(c.collection(), c.id(), seen.kind(), seen, now));
                    }
                }
            }
        }
    }

    private void report(Candidate c, FindingKind kind, boolean fieldOrderOnly) {
        Sides s = sides.get(c.collection());
        s.tally().finding(kind);
        if (fieldOrderOnly) {
            s.tally().fieldOrderOnly();
        }
        findings.accept(new Finding(kind, s.pair(), c.id(), kind, fieldOrderOnly));
    }

    private static void sleepUntil(long dueMs) {
        long wait = dueMs - System.currentTimeMillis();
        if (wait > 0) {
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new VerifyFailure("interrupted while waiting for a re-check", true, e);
            }
        }
    }
}
