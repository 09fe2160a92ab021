package dev.tideline.source;

import dev.tideline.event.ResnapshotMarker;
import dev.tideline.source.config.CaptureSettings.DropPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.bson.BsonTimestamp;

/**
 * How a collection's drop reaches the destination ({@code drop.policy}). Pure.
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
    private static final List<String> EMPTYING = List.of("drop", "rename");

    private final DropPolicy policy;
    private final ToIntFunction<CapturedCollection> markerPartitions;

    DropMarkers(DropPolicy policy, ToIntFunction<CapturedCollection> markerPartitions) {
        this.policy = policy;
        this.markerPartitions = markerPartitions;
    }

    /**
     * A stream's batch as it is published: each drop of a collection with its markers before it (policy
     * {@code apply}) or saying it is not applied ({@code report}), everything else as it is.
     */
    List<Map.Entry<CapturedCollection, Captured>> expand(List<Map.Entry<CapturedCollection, Captured>> items) {
        List<Map.Entry<CapturedCollection, Captured>> out = new ArrayList<>(items.size());
        Map<CapturedCollection, SourceOffset> before = new HashMap<>();
        for (Map.Entry<CapturedCollection, Captured> e : items) {
            CapturedCollection c = e.getKey();
            SourceOffset prior = before.containsKey(c) ? before.get(c) : c.position();
            if (e.getValue() instanceof Captured.Control drop && EMPTYING.contains(drop.type())) {
                if (policy == DropPolicy.APPLY) {
                    applied(c, drop, prior).forEach(item -> out.add(Map.entry(c, item)));
                } else {
                    out.add(Map.entry(c, new Captured.Control(drop.type(), drop.detail() + ": reported, not applied "
                            + "(drop.policy=report): the destination keeps the documents written before it", drop.offset())));
                }
            } else {
                out.add(e);
            }
            before.put(c, e.getValue().offset());
        }
        return out;
    }

    /** The markers of a drop, then its control record saying it was applied. */
    private List<Captured> applied(CapturedCollection c, Captured.Control drop, SourceOffset prior) {
        BsonTimestamp at = drop.offset().streamPosition().clusterTime();
        int partitions = markerPartitions.applyAsInt(c);
        String detail = drop.detail() + ": applied (drop.policy=apply), the destination's documents written before it are removed "
                + "(resnapshot markers of epoch " + ResnapshotMarker.show(at) + ")";
        return List.of(
                new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.BEGIN, c.ns(), at, partitions),
                        prior != null ? prior : drop.offset()),
                new Captured.Marker(new ResnapshotMarker(ResnapshotMarker.Stage.COMPLETE, c.ns(), at, partitions), drop.offset()),
                new Captured.Control(drop.type(), detail, drop.offset()));
    }
}
