package dev.tideline.bench;

import de.bwaldvogel.mongo.backend.Cursor;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.oplog.Oplog;
import dev.tideline.standin.AwaitingMemoryBackend;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The project's stand-in as a destination that notes, in the benchmark JVM's clock, when each document of one
 * namespace was first written. The server calls its oplog hooks inside the write, before it answers, so the time
 * is the destination write itself, not when someone looked. Being the stand-in, it answers the sinks' filters as
 * MongoDB does ({@code {_id: {$eq: v}}} and {@code {_id: v}} alike from the {@code _id} index), and counts the
 * documents they examine ({@link #documentsExamined()}). Its oplog is capped small: a destination keeps no history
 * ({@code server.enableOplog()} turns the hooks on).
 */
final class RecordingBackend extends AwaitingMemoryBackend {
    private static final long OPLOG_ENTRIES_KEPT = 1_000;

    private final String namespace;
    private final Map<Object, Long> firstWriteNanos = new ConcurrentHashMap<>();
    private final AtomicLong firstNanos = new AtomicLong();
    private volatile long lastNanos;

    /** @param namespace {@code db.collection} whose writes are recorded; others (e.g. the sink's own bookkeeping) are not */
    RecordingBackend(String namespace) {
        this.namespace = namespace;
        capOplog(OPLOG_ENTRIES_KEPT, 0);
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

    /** The stand-in's oplog, with the recording hooks before each write is logged. */
    @Override
    protected Oplog createOplog() {
        Oplog oplog = super.createOplog();
        return new Oplog() {
            @Override
            public void handleInsert(String ns, List<Document> documents) {
                record(ns, documents.stream().map(d -> d.get("_id")).toList());
                oplog.handleInsert(ns, documents);
            }

            @Override
            public void handleUpdate(String ns, Document selector, Document query, List<Object> modifiedIds) {
                record(ns, modifiedIds);
                oplog.handleUpdate(ns, selector, query, modifiedIds);
            }

            @Override
            public void handleDelete(String ns, Document query, List<Object> deletedIds) {
                oplog.handleDelete(ns, query, deletedIds);
            }

            @Override
            public void handleDropCollection(String ns) {
                oplog.handleDropCollection(ns);
            }

            @Override
            public Cursor createCursor(Document changeStreamDocument, String ns, Aggregation aggregation) {
                return oplog.createCursor(changeStreamDocument, ns, aggregation);
            }
        };
    }
}
