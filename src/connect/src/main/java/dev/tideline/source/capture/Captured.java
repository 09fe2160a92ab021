package dev.tideline.source.capture;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.ResnapshotMarker;

/** What a reader hands to the task, each with the collection's position right after it. */
public sealed interface Captured {
    SourceOffset offset();

    /**
     * A change (or a copy) of one document.
     *
     * @param before the document before the change where the server gave it (a pre-image, for the
     *               tenant of a delete), else null; never written to the record's value
     * @param transaction the multi-document transaction it belongs to, as the {@code tl.txn} header carries it, else null
     */
    record Change(ChangeEvent event, SourceOffset offset, org.bson.BsonDocument before, String transaction) implements Captured {
        public Change(ChangeEvent event, SourceOffset offset) {
            this(event, offset, null, null);
        }

        public Change(ChangeEvent event, SourceOffset offset, org.bson.BsonDocument before) {
            this(event, offset, before, null);
        }
    }

    /** No change, but the position moved (post-batch resume token, phase switch): commit it. */
    record Heartbeat(SourceOffset offset) implements Captured {
    }

    /**
     * Something the operator must know and no sink should apply: drop, rename, dropDatabase,
     * invalidate, history lost. {@code type} says which; {@code detail} says what happened.
     */
    record Control(ControlType type, String detail, SourceOffset offset) implements Captured {
    }

    /**
     * A repair moved (a chunk handed over, a repair finished): from this record on, the collection's
     * offsets carry {@code progress}. A heartbeat record, so it is committed in order with the chunk.
     */
    record RepairStep(SourceOffset offset, RepairProgress progress) implements Captured {
    }

    /** A resnapshot marker, written on the collection's change topic to each of its partitions. */
    record Marker(ResnapshotMarker marker, SourceOffset offset) implements Captured {
    }
}
