package dev.tideline.source;

import dev.tideline.source.capture.RepairProgress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one collection's records carry from one to the next, kept by its capture ({@link CollectionCapture})
 * so that its {@link RecordFactory} stays immutable: the sequence counter (header {@code tl.seq}), shared
 * with the chunks of its split copy so the collection's sequence has no repeats, and where its repairs
 * stand (carried in every record's offset, see {@link RepairProgress}).
 */
public final class RecordState {
    private final AtomicLong seq;
    private volatile RepairProgress repair;

    /** A collection's first record state: its repairs as its stored offset left them. */
    public RecordState(RepairProgress stored) {
        this(new AtomicLong(), stored);
    }

    private RecordState(AtomicLong seq, RepairProgress repair) {
        this.seq = seq;
        this.repair = repair;
    }

    /** The state of a chunk of the collection's split copy: the same sequence, no repairs of its own. */
    RecordState forChunk() {
        return new RecordState(seq, RepairProgress.NONE);
    }

    /** The next record's sequence number. */
    long next() {
        return seq.incrementAndGet();
    }

    /** Where the collection's repairs stand, as the records handed over so far say. */
    RepairProgress repair() {
        return repair;
    }

    /** A repair moved: the records from here on carry {@code progress}. */
    void repair(RepairProgress progress) {
        this.repair = progress;
    }
}
