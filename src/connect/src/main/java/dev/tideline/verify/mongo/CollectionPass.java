package dev.tideline.verify.mongo;

import com.mongodb.MongoCommandException;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.CollectionTally;
import dev.tideline.verify.DocumentBytes;
import dev.tideline.verify.DocumentComparison;
import dev.tideline.verify.FindingKind;
import dev.tideline.verify.Hashing;
import dev.tideline.verify.IdRange;
import dev.tideline.verify.MergeJoin;
import dev.tideline.verify.Observation;
import dev.tideline.verify.RangeCutter;
import dev.tideline.verify.RangeDigest;
import dev.tideline.verify.RangeResult;
import dev.tideline.verify.ServerHashing;
import dev.tideline.verify.VerifyListener;
import dev.tideline.verify.VerifySettings;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * The first look at one collection: every {@code _id} range compared, the ids that differ spooled for
 * their re-checks, and each range that differed reported.
 *
 * <p>With server hashing each range costs one aggregation per side (the source's also finds where
 * the range ends), and only a range whose digests differ is narrowed to ids, by listing each side's
 * {@code (id, hash, size)}. Without it, both sides are read once, each through a single cursor in
 * {@code _id} order (one index walk per side; a query per range would make a server without range
 * scans on {@code _id} filter the whole collection per range), and compared document by document.
 */
final class CollectionPass {
    private static final long PROGRESS_EVERY_MS = 5_000;

    private final VerifySettings settings;
    private final Retrier retrier;
    private final VerifyListener listener;
    private final Consumer<RangeResult> differingRange;
    private final CandidateSpool spool;
    private final int index;
    private final CollectionPair pair;
    private final Side source;
    private final Side destination;
    private final CollectionTally tally;
    private long lastProgressMs = System.currentTimeMillis();

    CollectionPass(VerifySettings settings, Retrier retrier, VerifyListener listener, Consumer<RangeResult> differingRange,
                   CandidateSpool spool, int index, CollectionPair pair, Side source, Side destination, CollectionTally tally) {
        this.settings = settings;
        this.retrier = retrier;
        this.listener = listener;
        this.differingRange = differingRange;
        this.spool = spool;
        this.index = index;
        this.pair = pair;
        this.source = source;
        this.destination = destination;
        this.tally = tally;
    }

    void run() {
        if (settings.mayHashOnServers()) {
            long mark = spool.mark();
            long countAtMark = spool.count();
            try {
                retrier.run(source.name(), "trying server hashing on " + source.namespace(), source::probeServerHashing);
                retrier.run(destination.name(), "trying server hashing on " + destination.namespace(), destination::probeServerHashing);
                tally.hashing("server");
                serverPass();
                return;
            } catch (RuntimeException e) {
                MongoCommandException refused = refusedOperator(e);
                if (refused == null) {
                    throw e;
                }
                if (settings.hashing() == Hashing.SERVER) {
                    throw new VerifyFailure("server hashing is not available for " + pair + " (server error " + refused.getErrorCode()
                            + ": " + refused.getErrorMessage() + "); use --hashing auto or client", false, e);
                }
                listener.note(pair + ": a server cannot hash ranges (error " + refused.getErrorCode() + " " + refused.getErrorCodeName()
                        + "); reading and comparing the documents instead");
                spool.truncate(mark, countAtMark);
                tally.resetPass();
            }
        }
        tally.hashing("client");
        clientPass();
    }

    /** The server's refusal of an operator in {@code e}, or null when {@code e} is something else. */
    private static MongoCommandException refusedOperator(Throwable e) {
        if (!MongoErrors.isUnsupportedOperator(e)) {
            return null;
        }
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof MongoCommandException ce) {
                return ce;
            }
        }
        return null;
    }

    // ----- client hashing: both sides read once, in _id order

    private void clientPass() {
        DocumentComparison comparison = settings.comparison();
        RangeCutter cutter = new RangeCutter(settings.rangeSize(), null, this::rangeDone);
        BsonValue after = null;
        boolean started = false;
        int failures = 0;
        while (true) {
            IdRange rest = new IdRange(after, null);
            try (Cursor<RawBsonDocument> src = source.scan(rest); Cursor<RawBsonDocument> dst = destination.scan(rest)) {
                MergeJoin<RawBsonDocument> merge = new MergeJoin<>(src, dst, DocumentBytes::id, comparison::same);
                MergeJoin.Step<RawBsonDocument> step;
                while ((step = merge.next()) != null) {
                    started = true;
                    cutter.add(step);
                    if (step.kind() != MergeJoin.Kind.SAME) {
                        Observation seen = new Observation(step.source() == null ? null : comparison.fingerprint(step.source()),
                                step.destination() == null ? null : comparison.fingerprint(step.destination()));
                        candidate(step.id(), kindOf(step.kind()), seen);
                    }
                    after = step.id();
                    failures = 0; // progress: a later failure gets every attempt again
                    progress();
                }
                cutter.finish();
                return;
            } catch (CursorFailure f) {
                String what = "reading " + pair + (started ? " after _id " + after : "");
                retrier.failed(f.side(), what, f.failure(), ++failures);
                listener.note(pair + ": reading both sides again" + (started ? " after _id " + after : ""));
            }
        }
    }

    // ----- server hashing: one digest per range and side, ids listed only for differing ranges

    private void serverPass() {
        BsonValue after = null;
        while (true) {
            final BsonValue from = after;
            RangeDigest src = retrier.call(source.name(), "hashing the " + settings.rangeSize() + " ids after " + (from == null ? "the start" : from)
                    + " of " + source.namespace(), () -> source.nextRangeDigest(from, settings.rangeSize()));
            BsonValue upTo = src.documents() < settings.rangeSize() ? null : src.lastId();
            IdRange range = new IdRange(from, upTo);
            RangeDigest dst = retrier.call(destination.name(), "hashing the range " + range + " of " + destination.namespace(),
                    () -> destination.rangeDigest(range));
            if (src.documents() == 0 && dst.documents() == 0) {
                return;
            }
            if (src.sameContentAs(dst)) {
                rangeDone(new RangeResult(range, src.documents(), dst.documents(), 0, 0, 0));
            } else {
                narrow(range);
            }
            progress();
            if (upTo == null) {
                return;
            }
            after = upTo;
        }
    }

    /** Lists a differing range's (id, hash, size) on both sides and walks them side by side. */
    private void narrow(IdRange range) {
        for (int failures = 1; ; failures++) {
            RangeResult[] counted = new RangeResult[1];
            RangeCutter cutter = new RangeCutter(Integer.MAX_VALUE, range.after(), r -> counted[0] = r);
            long mark = spool.mark();
            long countAtMark = spool.count();
            try (Cursor<BsonDocument> src = source.idHashes(range); Cursor<BsonDocument> dst = destination.idHashes(range)) {
                MergeJoin<BsonDocument> merge = new MergeJoin<>(src, dst, d -> d.get("_id"),
                        (a, b) -> ServerHashing.fingerprintOf(a).equals(ServerHashing.fingerprintOf(b)));
                MergeJoin.Step<BsonDocument> step;
                while ((step = merge.next()) != null) {
                    cutter.add(step);
                    if (step.kind() != MergeJoin.Kind.SAME) {
                        candidate(step.id(), kindOf(step.kind()), null);
                    }
                }
                cutter.finish();
                RangeResult r = counted[0] == null ? new RangeResult(range, 0, 0, 0, 0, 0) : counted[0];
                rangeDone(new RangeResult(range, r.sourceDocuments(), r.destinationDocuments(), r.missing(), r.extra(), r.different()));
                return;
            } catch (CursorFailure f) {
                spool.truncate(mark, countAtMark);
                retrier.failed(f.side(), "listing the hashes of range " + range + " of " + pair, f.failure(), failures);
            }
        }
    }

    // ----- shared

    private void candidate(BsonValue id, FindingKind kind, Observation seen) {
        spool.add(new Candidate(index, id, kind, seen, System.currentTimeMillis()));
        tally.candidate();
    }

    private void rangeDone(RangeResult r) {
        tally.range(r);
        if (r.differs()) {
            differingRange.accept(r);
        }
    }

    private void progress() {
        long now = System.currentTimeMillis();
        if (now - lastProgressMs >= PROGRESS_EVERY_MS) {
            lastProgressMs = now;
            listener.progress(pair, tally.documents(), tally.candidates());
        }
    }

    private static FindingKind kindOf(MergeJoin.Kind kind) {
        return switch (kind) {
            case MISSING -> FindingKind.MISSING;
            case EXTRA -> FindingKind.EXTRA;
            default -> FindingKind.DIFFERENT;
        };
    }
}
