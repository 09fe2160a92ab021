package dev.tideline.sink.front;

import dev.tideline.event.Namespace;
import dev.tideline.event.RefusedRecordException;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.sink.guard.VersionBound;
import dev.tideline.sink.route.NamespaceRouter;
import java.util.Optional;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Reads the source's resnapshot markers ({@link ResnapshotMarker}: a copy's, a repair's, or a drop's, which is a copy
 * of nothing at the drop's cluster time) from a record's headers, for the sink's sweep and the peer sink alike: where
 * the marker's collection lands, and its epoch bounded as every version is ({@link VersionBound}). Markers are records,
 * so untrusted; the record's size and signature are checked before, by {@link SinkFrontEnd#read}.
 */
public final class MarkerReader {
    /** A marker and where its collection lands. */
    public record Routed(ResnapshotMarker marker, Namespace destination) {
    }

    private final NamespaceRouter router;
    private final VersionBound bound;

    public MarkerReader(NamespaceRouter router, VersionBound bound) {
        this.router = router;
        this.bound = bound;
    }

    /**
     * @return the marker a record carries (empty for every other record, and for markers of a collection
     * the filter leaves to another destination)
     * @throws dev.tideline.event.MalformedRecordException for a marker with a missing or bad header
     * @throws RefusedRecordException for a marker whose epoch is too far ahead of this worker's clock
     */
    public Optional<Routed> read(SinkRecord record) {
        Optional<ResnapshotMarker> marker = ResnapshotMarker.fromHeaders(name -> {
            Header h = record.headers().lastWithName(name);
            return h == null ? null : h.value();
        });
        if (marker.isEmpty()) {
            return Optional.empty();
        }
        ResnapshotMarker m = marker.get();
        Optional<Routed> routed = router.destination(record.topic(), m.ns()).map(d -> new Routed(m, d));
        if (routed.isPresent()) {
            bound.problem(m.epoch(), "the epoch of this " + m.stage().wireName() + " marker of " + m.ns() + ",").ifPresent(p -> {
                throw new RefusedRecordException(p);
            });
        }
        return routed;
    }
}
