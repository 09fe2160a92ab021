package dev.tideline.verify.cli;

import dev.tideline.event.Namespace;
import dev.tideline.verify.Finding;
import dev.tideline.verify.FindingKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Groups a report's findings into repair signals, source collection by source collection: the part of
 * {@link RepairSignalWriter} that needs no MongoDB. Memory stays bounded whatever the report's size:
 * each collection buffers at most one signal's ids, and a full buffer is handed on at once.
 *
 * <p>Missing, extra and different ids are all re-copied (the connector deletes downstream what the
 * source no longer has). In-flight ids are left out and only counted: they were changing during the
 * run, so the stream is already carrying their change.
 */
final class RepairSignalBatcher {
    /** Ids per signal document; the connector accepts up to 1,000,000, fewer keeps a signal far below 16 MB. */
    static final int MAX_IDS_PER_SIGNAL = 100_000;
    /**
     * Encoded id bytes per signal: 100,000 ObjectIds take about 2 MB, but long string or document ids
     * would pass MongoDB's 16 MB document limit well before 100,000, so a signal also closes at this size.
     */
    static final long MAX_ID_BYTES_PER_SIGNAL = 8L * 1024 * 1024;

    /** One signal to write: {@code ids} of the source collection {@code collection}. */
    record Signal(Namespace collection, List<BsonValue> ids) {
    }

    /** What was signalled for one source collection. */
    record CollectionRepair(Namespace collection, long ids, int signals, long inFlightLeftOut) {
    }

    private static final class Buffer {
        List<BsonValue> ids = new ArrayList<>();
        long bytes;
        long total;
        int signals;
        long inFlight;
    }

    private final Consumer<Signal> sink;
    private final int maxIds;
    private final long maxBytes;
    private final Map<Namespace, Buffer> buffers = new LinkedHashMap<>(); // report order, for the printed lines

    /** @param sink receives each full signal as soon as it is full, and the rest at {@link #finish()} */
    RepairSignalBatcher(Consumer<Signal> sink) {
        this(sink, MAX_IDS_PER_SIGNAL, MAX_ID_BYTES_PER_SIGNAL);
    }

    RepairSignalBatcher(Consumer<Signal> sink, int maxIds, long maxBytes) {
        if (maxIds < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("a signal holds at least one id, got maxIds " + maxIds + ", maxBytes " + maxBytes);
        }
        this.sink = sink;
        this.maxIds = maxIds;
        this.maxBytes = maxBytes;
    }

    void accept(Finding finding) {
        Namespace collection = finding.collection().source();
        Buffer b = buffers.computeIfAbsent(collection, k -> new Buffer());
        if (finding.kind() == FindingKind.IN_FLIGHT) {
            b.inFlight++;
            return;
        }
        long size = encodedSize(finding.id());
        if (!b.ids.isEmpty() && b.bytes + size > maxBytes) {
            flush(collection, b);
        }
        b.ids.add(finding.id());
        b.bytes += size;
        b.total++;
        if (b.ids.size() >= maxIds) {
            flush(collection, b);
        }
    }

    /** Hands on what is still buffered and returns every collection seen, in report order. */
    List<CollectionRepair> finish() {
        List<CollectionRepair> out = new ArrayList<>();
        buffers.forEach((collection, b) -> {
            if (!b.ids.isEmpty()) {
                flush(collection, b);
            }
            out.add(new CollectionRepair(collection, b.total, b.signals, b.inFlight));
        });
        return out;
    }

    private void flush(Namespace collection, Buffer b) {
        List<BsonValue> ids = b.ids;
        b.ids = new ArrayList<>(); // the sink may keep the list it got
        b.bytes = 0;
        b.signals++;
        sink.accept(new Signal(collection, ids));
    }

    /** An upper bound of the id's bytes as an element of the signal's array (type byte and index key included). */
    static long encodedSize(BsonValue id) {
        int element = 1 + 7; // type byte + an index key of up to 6 digits and its terminator
        return element + switch (id.getBsonType()) {
            case INT32 -> 4;
            case INT64, DOUBLE, DATE_TIME, TIMESTAMP -> 8;
            case OBJECT_ID -> 12;
            case DECIMAL128 -> 16;
            case BOOLEAN -> 1;
            case NULL, MIN_KEY, MAX_KEY, UNDEFINED -> 0;
            // strings, documents, binaries...: their encoding, less the wrapper's 7 bytes (length, type, empty key, end)
            default -> new RawBsonDocument(new BsonDocument("", id), new BsonDocumentCodec()).getByteBuffer().remaining() - 7;
        };
    }
}
