package dev.tideline.source;

import dev.tideline.event.Namespace;
import dev.tideline.source.capture.SourceOffset;
import org.bson.BsonDocument;

/**
 * One collection a task captures: its record factory (which holds its sequence counter), its metrics,
 * its filter, and which part of the task reads it now. Only one part at a time (the copy pool, the
 * database's change stream, or the scan pool) publishes for it, handing it over to the next.
 */
final class CollectionCapture {
    enum State { COPYING, STREAMING, SCANNING, PARKED }

    private final Namespace ns;
    private final RecordFactory records;
    private final CaptureMetrics metrics;
    private final BsonDocument filter;
    private volatile State state;
    /** The position after the last item handed over, or null before the first. */
    private volatile SourceOffset position;

    CollectionCapture(Namespace ns, RecordFactory records, CaptureMetrics metrics, BsonDocument filter, SourceOffset stored) {
        this.ns = ns;
        this.records = records;
        this.metrics = metrics;
        this.filter = filter;
        this.position = stored;
    }

    Namespace ns() {
        return ns;
    }

    RecordFactory records() {
        return records;
    }

    CaptureMetrics metrics() {
        return metrics;
    }

    BsonDocument filter() {
        return filter;
    }

    State state() {
        return state;
    }

    void state(State s) {
        this.state = s;
    }

    SourceOffset position() {
        return position;
    }

    void position(SourceOffset p) {
        this.position = p;
    }

    @Override
    public String toString() {
        return ns.fullName();
    }
}
