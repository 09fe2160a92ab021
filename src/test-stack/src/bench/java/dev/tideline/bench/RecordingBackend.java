package dev.tideline.bench;

import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A destination stand-in that notes, in the benchmark JVM's clock, when each document of one
 * namespace was first written. The server calls its oplog hooks inside the write, before it answers,
 * so the time is the destination write itself, not when someone looked. It keeps no history and
 * serves no change streams: it is a destination only ({@code server.enableOplog()} turns the hooks on).
 */
final class RecordingBackend extends MemoryBackend {
    private final String namespace;
    private final Map<Object, Long> firstWriteNanos = new ConcurrentHashMap<>();
    private final AtomicLong firstNanos = new AtomicLong();
    private volatile long lastNanos;

    /** @param namespace {@code db.collection} whose writes are recorded; others (e.g. the sink's own bookkeeping) are not */
    RecordingBackend(String namespace) {
        this.namespace = namespace;
    }

    /** Distinct documents written so far. */
    int distinctWritten() {
        return firstWriteNanos.size();
    }

    /** When {@code id} was first written (System.nanoTime), or null. */
    Long firstWriteNanos(Object id) {
        return firstWriteNanos.get(id);
    }

    /** The first recorded write, or 0 before any. */
    long firstNanos() {
        return firstNanos.get();
    }

    long lastNanos() {
        return lastNanos;
    }

    private void record(String ns, List<?> ids) {
        if (!namespace.equals(ns)) {
            return;
        }
        long now = System.nanoTime();
        firstNanos.compareAndSet(0, now);
        lastNanos = now;
        for (Object id : ids) {
            firstWriteNanos.putIfAbsent(id, now);
        }
    }

    @Override
    protected Oplog createOplog() {
        return new Oplog() {
            @Override
            public void handleInsert(String ns, List<Document> documents) {
                record(ns, documents.stream().map(d -> d.get("_id")).toList());
            }

            @Override
            public void handleUpdate(String ns, Document selector, Document query, List<Object> modifiedIds) {
                record(ns, modifiedIds);
            }

            @Override
            public void handleDelete(String ns, Document query, List<Object> deletedIds) {
            }

            @Override
            public void handleDropCollection(String ns) {
            }

            @Override
            public Cursor createCursor(Document changeStreamDocument, String ns, Aggregation aggregation) {
                throw new UnsupportedOperationException("the benchmark's destination stand-in serves no change streams");
            }
        };
    }
}
