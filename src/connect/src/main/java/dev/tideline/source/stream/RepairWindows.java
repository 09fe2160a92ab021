package dev.tideline.source.stream;

import dev.tideline.event.Namespace;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.repair.RepairSignals;
import dev.tideline.source.stream.StreamOutput.Delivery;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.BsonValue;

/**
 * The repair windows open on one change stream, and what the stream reads of the signal
 * collections (one per database): a watermark's insert is its window's low mark and its delete the high mark; any other
 * insert is a new signal. Called on the stream's thread, except {@link #register}/{@link #cancel}.
 */
final class RepairWindows {
    /** The collections of the stream. */
    interface Members {
        /** Where a collection stands in the batch being read (null when it is not read here). */
        StreamPosition positionOf(Namespace collection);
    }

    private final Map<String, RepairWindow> windows = new ConcurrentHashMap<>();
    /** Windows whose high watermark is in the batch being read. */
    private final List<RepairWindow> closing = new ArrayList<>();

    void register(RepairWindow w) {
        windows.put(w.id(), w);
    }

    void cancel(String windowId) {
        windows.remove(windowId);
    }

    /**
     * @param out  where the window's records go, in stream order
     * @param signals where new signal ids go, by database
     */
    void observe(RawChangeEvent event, Members members, List<Delivery> out, Map<String, List<BsonValue>> signals) {
        if (RepairSignals.COLLECTION.equals(event.coll())) {
            BsonValue id = event.documentId();
            if (RepairSignals.isWatermark(id)) {
                watermark(event, id.asDocument().get(RepairSignals.WINDOW_KEY), members, out);
            } else if ("insert".equals(event.type()) && id != null) {
                signals.computeIfAbsent(event.db(), d -> new ArrayList<>()).add(id);
            }
            return;
        }
        if (!windows.isEmpty() && event.coll() != null) {
            for (RepairWindow w : windows.values()) {
                if (w.collection().ns().coll().equals(event.coll()) && w.collection().ns().db().equals(event.db())) {
                    w.changed(event.documentId());
                }
            }
        }
    }

    private void watermark(RawChangeEvent event, BsonValue windowId, Members members, List<Delivery> out) {
        RepairWindow w = windowId != null && windowId.isString() ? windows.get(windowId.asString().getValue()) : null;
        if (w == null) {
            return; // another connector's, or one read again after it closed
        }
        StreamPosition position = members.positionOf(w.collection().ns());
        if (position == null) {
            windows.remove(w.id());
            w.fail(new IllegalStateException(w.collection().ns().fullName() + " is no longer read by the change stream"));
            return;
        }
        List<Captured> items;
        if ("insert".equals(event.type())) {
            items = w.low(event.clusterTime(), SourceOffset.streamAt(position));
        } else if ("delete".equals(event.type())) {
            items = w.high(event.clusterTime(), SourceOffset.streamAt(position));
            closing.add(w);
        } else {
            return;
        }
        items.forEach(i -> out.add(new Delivery(w.collection(), i)));
    }

    /** The batch is handed over: the windows it closed are done. */
    void handedOver() {
        for (RepairWindow w : closing) {
            windows.remove(w.id());
            w.handedOver();
        }
        closing.clear();
    }

    /** The batch was not handed over: it is read again, high watermarks included. */
    void batchLost() {
        closing.clear();
    }

    /** The stream stops: nothing closes any more. */
    void failAll(RuntimeException why) {
        closing.clear();
        windows.values().forEach(w -> w.fail(why));
        windows.clear();
    }
}
