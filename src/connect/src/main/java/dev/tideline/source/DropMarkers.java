package dev.tideline.source;

import dev.tideline.event.Namespace;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionHandle;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.config.CaptureSettings.DropPolicy;
import dev.tideline.source.stream.StreamOutput.Delivery;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;
import org.bson.BsonTimestamp;

/**
 * How a collection's drop reaches the destination ({@code drop.policy}), and what every control record of a
 * change-stream DDL event says follows from it: applied, or reported and not applied. Pure.
 *
 * <p>A drop is a copy of an empty collection at the drop's cluster time T: with {@code apply}, the drop's
 * control record is preceded by a {@code resnapshot.begin} and a {@code resnapshot.complete} marker of
 * epoch T on every partition of the collection's change topic, in stream order with its changes. The
 * Tideline sink's sweep ({@code SweepRule}) then removes every document whose last version is older than
 * T, all of them written before the drop, and keeps whatever a re-created collection streams after it
 * (newer than T). The same holds for a rename of the collection to another name (its name then holds
 * nothing) and for {@code dropDatabase}, which MongoDB reports as a drop of each collection first
 * (https://www.mongodb.com/docs/manual/reference/change-events/dropDatabase/).
 *
 * <p>Crash-safe: the begin marker carries the collection's position from before the drop, only the
 * complete marker and the control record the position after it. Connect commits a partition's offset
 * only up to records all acknowledged in order, so a crash anywhere before the complete marker is written
 * re-reads the drop and sends both again; the sink applies them idempotently.
 */
final class DropMarkers {
    /** Events after which the collection's name holds no documents. */
    private static final Set<ControlType> EMPTYING = EnumSet.of(ControlType.DROP, ControlType.RENAME);
    /**
     * Events that are only reported: a {@code dropDatabase} comes after a drop of each of its collections (which
     * {@link #EMPTYING} covers), and an {@code invalidate} ends the stream, which goes on after it.
     */
    private static final Set<ControlType> REPORTED = EnumSet.of(ControlType.DROP_DATABASE, ControlType.INVALIDATE);

    private final DropPolicy policy;
    /** The partitions of a collection's change topic, which the markers go to. */
    private final ToIntFunction<Namespace> markerPartitions;

    DropMarkers(DropPolicy policy, ToIntFunction<Namespace> markerPartitions) {
        this.policy = policy;
        this.markerPartitions = markerPartitions;
    }

    /**
     * A stream's batch as it is published: each drop of a collection with its markers before it (policy
     * {@code apply}) or saying it is not applied ({@code report}); a {@code dropDatabase} or {@code invalidate}
     * saying it is reported, not applied; everything else as it is.
     */
    List<Delivery> expand(List<Delivery> items) {
        List<Delivery> out = new ArrayList<>(items.size());
        Map<CollectionHandle, SourceOffset> before = new HashMap<>();
        for (Delivery d : items) {
            CollectionHandle c = d.collection();
            SourceOffset prior = before.containsKey(c) ? before.get(c) : c.position();
            if (d.item() instanceof Captured.Control drop && EMPTYING.contains(drop.type())) {
                if (policy == DropPolicy.APPLY) {
                    applied(c, drop, prior).forEach(item -> out.add(new Delivery(c, item)));
                } else {
                    out.add(new Delivery(c, reported(drop, " (drop.policy=report): the destination keeps the documents written "
                            + "before it")));
                }
            } else if (d.item() instanceof Captured.Control event && REPORTED.contains(event.type())) {
                out.add(new Delivery(c, reported(event, "")));
            } else {
                out.add(d);
            }
            before.put(c, d.item().offset());
        }
        return out;
    }

    private static Captured.Control reported(Captured.Control event, String why) {
        return new Captured.Control(event.type(), event.detail() + ": reported, not applied" + why, event.offset());
    }

    /** The markers of a drop, then its control record saying it was applied. */
    private List<Captured> applied(CollectionHandle c, Captured.Control drop, SourceOffset prior) {
        BsonTimestamp at = drop.offset().streamPosition().clusterTime();
        int partitions = markerPartitions.applyAsInt(c.ns());
        String detail = drop.detail() + ": applied (drop.policy=apply), the destination's documents written before it are removed "
                + "(resnapshot markers of epoch " + ResnapshotMarker.show(at) + ")";
        return List.of(
                new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.BEGIN, c.ns(), at, partitions),
                        prior != null ? prior : drop.offset()),
                new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, c.ns(), at, partitions), drop.offset()),
                new Captured.Control(drop.type(), detail, drop.offset()));
    }
}
