package dev.tideline.source.stream;

import dev.tideline.event.Namespace;
import dev.tideline.mongo.BsonOrder;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionHandle;
import dev.tideline.source.capture.SourceOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * One chunk of a repair, read between two watermarks of the change stream (DBLog, Andreas Andreakis and
 * Ioannis Papapanagiotou, 2019, https://arxiv.org/abs/2010.12597): the repair writes a low watermark,
 * selects the chunk, hands it here ({@link #offer}), and writes the high watermark. The stream, reading
 * in log order, notes every document of the collection that changes between the two; at the high
 * watermark the chunk's rows for those documents are dropped (the stream already carries a newer
 * version, in order), and the rest go out right there, before any later change. So a copied row never
 * follows a newer change of its document on the topic, for any consumer, and the stream never pauses.
 * The window closes only once that batch is handed over: a batch that fails is read again, watermarks
 * included, and the rows go out with it.
 *
 * <p>Pure bookkeeping on the stream's thread, except {@link #offer} (the repair's thread, before it
 * writes the high watermark) and {@link #closed()} (which the repair waits on).
 */
public final class RepairWindow {
    /** What the repair sends at each watermark; called on the stream's thread. */
    public interface Emitter {
        /** At the low watermark (e.g. a resnapshot begin marker with it as epoch). */
        List<Captured> atLow(BsonTimestamp low, SourceOffset position);

        /**
         * At the high watermark.
         *
         * @param kept rows of the chunk whose documents did not change in the window
         * @param gone listed {@code _id}s the chunk did not find and that did not change in the window
         */
        List<Captured> atHigh(BsonTimestamp high, SourceOffset position, List<RawBsonDocument> kept, List<BsonValue> gone);
    }

    /** A chunk as selected: its rows, and for a repair of listed ids, the ids asked for. */
    public record Chunk(List<RawBsonDocument> rows, List<BsonValue> asked) {
    }

    private final String id;
    private final CollectionHandle collection;
    private final Emitter emitter;
    private final TreeSet<BsonValue> changed = new TreeSet<>(BsonOrder.COMPARATOR);
    private final CompletableFuture<Integer> closed = new CompletableFuture<>();
    private volatile Chunk chunk;
    private boolean open;
    private int sent;

    /** @param collection the collection repaired: the window's records go to it, as the stream's own records do */
    public RepairWindow(String id, CollectionHandle collection, Emitter emitter) {
        this.id = id;
        this.collection = collection;
        this.emitter = emitter;
    }

    public String id() {
        return id;
    }

    public CollectionHandle collection() {
        return collection;
    }

    /** The chunk, selected after the low watermark; before the high one is written. */
    public void offer(Chunk c) {
        this.chunk = c;
    }

    /** Completes with the rows sent, or exceptionally when the window could not be closed. */
    public CompletableFuture<Integer> closed() {
        return closed;
    }

    /** The low watermark was read (again, after a reopen: nothing changes). */
    List<Captured> low(BsonTimestamp at, SourceOffset position) {
        if (open) {
            return List.of();
        }
        open = true;
        return emitter.atLow(at, position);
    }

    /** A change of the collection read after the low watermark. */
    void changed(BsonValue documentId) {
        if (open && documentId != null) {
            changed.add(documentId);
        }
    }

    /** The high watermark was read: what goes out now, in place. */
    List<Captured> high(BsonTimestamp at, SourceOffset position) {
        Chunk c = chunk;
        if (!open || c == null) {
            fail(new IllegalStateException("the high watermark of window " + id + " came " + (open ? "before its chunk" : "before its low watermark")));
            return List.of();
        }
        List<RawBsonDocument> kept = new ArrayList<>(c.rows().size());
        TreeSet<BsonValue> found = new TreeSet<>(BsonOrder.COMPARATOR);
        for (RawBsonDocument row : c.rows()) {
            BsonValue docId = row.get("_id");
            found.add(docId);
            if (!changed.contains(docId)) {
                kept.add(row);
            }
        }
        List<BsonValue> gone = new ArrayList<>();
        for (BsonValue asked : c.asked()) {
            if (!found.contains(asked) && !changed.contains(asked)) {
                gone.add(asked);
            }
        }
        sent = kept.size() + gone.size();
        return emitter.atHigh(at, position, kept, gone);
    }

    /** What {@link #high} returned is handed over: the repair may go on. */
    void handedOver() {
        closed.complete(sent);
    }

    /** The window cannot close (its collection left the stream, the repair gave up on it). */
    void fail(RuntimeException why) {
        closed.completeExceptionally(why);
    }
}
