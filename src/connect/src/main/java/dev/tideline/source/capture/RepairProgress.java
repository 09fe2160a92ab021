package dev.tideline.source.capture;

import dev.tideline.mongo.BsonOrder;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * Where a collection's repairs stand, kept in its source offset ({@link SourceOffset#withRepair}), so a
 * restart continues a repair after its last copied chunk, and marks a finished one done in its signal
 * document if the task stopped before it could.
 *
 * <p>Every record of the collection carries it (a record's offset is the whole position of its
 * partition), and it moves only with the record that closes a chunk: a crash before that record is
 * committed copies the chunk again, never skips it.
 *
 * @param signal the running repair's signal {@code _id}, or null when none runs
 * @param epoch  the running repair's first low watermark (the resnapshot epoch of a range or whole
 *               collection repair), null before it is read
 * @param lastId the last {@code _id} the running repair has handed over, null before the first chunk
 * @param done   the signals finished most recently, oldest first (at most {@value #DONE_KEPT})
 */
public record RepairProgress(BsonValue signal, BsonTimestamp epoch, BsonValue lastId, List<BsonValue> done) {
    /**
     * The signal document is what keeps a signal from running again (marked done there once this offset is
     * committed, see CollectionRepairs); this list only covers the seconds between that commit and the mark,
     * for at most 1 + repair.queue.max (at most 51) signals per collection.
     */
    static final int DONE_KEPT = 64;
    public static final RepairProgress NONE = new RepairProgress(null, null, null, List.of());

    public RepairProgress {
        done = List.copyOf(done);
    }

    public boolean isEmpty() {
        return signal == null && done.isEmpty();
    }

    public boolean running() {
        return signal != null;
    }

    public boolean isRunning(BsonValue sig) {
        return signal != null && BsonOrder.compare(signal, sig) == 0;
    }

    public boolean isDone(BsonValue sig) {
        return done.stream().anyMatch(d -> BsonOrder.compare(d, sig) == 0);
    }

    public RepairProgress start(BsonValue sig) {
        return new RepairProgress(sig, null, null, done);
    }

    public RepairProgress began(BsonTimestamp at) {
        return new RepairProgress(signal, at, lastId, done);
    }

    public RepairProgress copiedUpTo(BsonValue id) {
        return new RepairProgress(signal, epoch, id, done);
    }

    /** The running repair is finished (or abandoned): it joins the done list. */
    public RepairProgress finished() {
        List<BsonValue> d = new ArrayList<>(done);
        if (signal != null && !isDone(signal)) {
            d.add(signal);
        }
        return new RepairProgress(null, null, null, d.subList(Math.max(0, d.size() - DONE_KEPT), d.size()));
    }

    BsonDocument toDocument() {
        BsonDocument d = new BsonDocument();
        if (signal != null) {
            d.append("sig", signal);
        }
        if (epoch != null) {
            d.append("epoch", epoch);
        }
        if (lastId != null) {
            d.append("last", lastId);
        }
        d.append("done", new BsonArray(done));
        return d;
    }

    /** @throws IllegalArgumentException naming what is wrong */
    static RepairProgress fromDocument(BsonDocument d) {
        BsonValue epoch = d.get("epoch");
        if (epoch != null && !epoch.isTimestamp()) {
            throw new IllegalArgumentException("'epoch' must be a timestamp, got " + epoch);
        }
        BsonValue done = d.get("done", new BsonArray());
        if (!done.isArray()) {
            throw new IllegalArgumentException("'done' must be an array of signal _ids, got " + done);
        }
        if (d.get("sig") == null && (epoch != null || d.get("last") != null)) {
            throw new IllegalArgumentException("'epoch' and 'last' belong to a running repair, which needs 'sig'");
        }
        return new RepairProgress(d.get("sig"), epoch == null ? null : epoch.asTimestamp(), d.get("last"), done.asArray().getValues());
    }
}
