package dev.tideline.source.stream;

import dev.tideline.event.Namespace;
import dev.tideline.log.LogText;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionHandle;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.stream.StreamOutput.Delivery;
import dev.tideline.source.stream.StreamPipeline.Member;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The collections one change stream reads (of one database, or of many on a deployment stream) and where
 * each stands: which events each one gets (routing by {@code ns}, dropping what a collection already has),
 * how positions move once a batch is handed over, and which quiet ones are due a heartbeat. Pure: the
 * stream's thread owns it.
 */
final class StreamMembers {
    private static final Logger log = LoggerFactory.getLogger(StreamMembers.class);

    /** One collection of the stream: where the stream read to for it (its record's position is the handle's). */
    private static final class Tracked {
        final Namespace collection;
        final CollectionHandle handle;
        final BsonDocument filter;
        StreamPosition position;
        long lastRecordMs;
        /** Joined at a finished copy's stream start, not yet read from: lost history then means the copy outlived the oplog. */
        boolean afterCopy;

        Tracked(CollectionHandle handle, BsonDocument filter, StreamPosition position, boolean afterCopy, long nowMs) {
            this.collection = handle.ns();
            this.handle = handle;
            this.filter = filter;
            this.position = position;
            this.lastRecordMs = nowMs;
            this.afterCopy = afterCopy;
        }

        /** Whether the collection's last record carried its position already (no heartbeat is due). */
        boolean published() {
            SourceOffset last = handle.position();
            return last != null && last.phase() == SourceOffset.Phase.STREAM && last.streamPosition().covers(position);
        }
    }

    /** What one batch read: the deliveries, where each collection moves once they are handed over, what must be copied again. */
    static final class Batch {
        final List<Delivery> deliveries = new ArrayList<>();
        final Map<Namespace, StreamPosition> moved = new HashMap<>();
        /** The collections a rename replaced, each with the rename's cluster time: their copy starts after it. */
        final Map<Namespace, BsonTimestamp> recopies = new LinkedHashMap<>();
        /** New repair signals read (their {@code _id}s), by database. */
        final Map<String, List<org.bson.BsonValue>> signals = new TreeMap<>();
    }

    /** A collection whose position is no longer in the oplog. */
    record Lost(CollectionHandle collection, StreamPosition position, boolean afterCopy) {
    }

    /** The stream's name in logs. */
    private final String db;
    private final Map<Namespace, Tracked> members = new HashMap<>();
    private final HeartbeatPacer pacer;

    StreamMembers(String db, long heartbeatIntervalMs) {
        this.db = db;
        this.pacer = new HeartbeatPacer(heartbeatIntervalMs);
    }

    void add(CollectionHandle collection, BsonDocument filter, StreamPosition position, boolean afterCopy, long nowMs) {
        Tracked previous = members.put(collection.ns(), new Tracked(collection, filter, position, afterCopy, nowMs));
        if (previous != null) {
            log.warn("Change stream of {}: {} joined again at {} (was at {})", LogText.escape(db), LogText.escape(collection.ns()),
                    position, previous.position);
        }
    }

    boolean isEmpty() {
        return members.isEmpty();
    }

    int size() {
        return members.size();
    }

    boolean contains(Namespace collection) {
        return members.containsKey(collection);
    }

    /** The members as the pipeline plans them. */
    List<Member> list() {
        List<Member> out = new ArrayList<>(members.size());
        members.values().forEach(t -> out.add(new Member(t.collection, t.filter, t.position)));
        return out;
    }

    /**
     * Routes one event: to its collection, unless that collection already has it (the stream opened behind
     * it for another one); a rename onto a member makes that member copied again, once: a rename its position
     * already covers is not acted on again; database-wide events are
     * reported once, under the database's first member.
     */
    void route(RawChangeEvent event, StreamPosition at, long now, Batch batch) {
        String type = event.type();
        if ("rename".equals(type) && event.destination() != null && event.destination().indexOf('.') > 0) {
            Namespace target = Namespace.parse(event.destination());
            Tracked t = members.get(target);
            // a rename the target's position covers was read again after a rewind: the target was copied since
            if (t != null && !batch.recopies.containsKey(target) && !batch.moved.getOrDefault(target, t.position).covers(at)) {
                String detail = "rename of " + event.db() + "." + event.coll() + " onto " + target.fullName() + " at " + event.clusterTime()
                        + ": its documents were replaced without change events; the collection is copied again";
                log.warn("Change stream of {}: {}", LogText.escape(db), LogText.message(detail));
                batch.deliveries.add(new Delivery(t.handle, new Captured.Control(ControlType.RENAMED_INTO, detail,
                        SourceOffset.streamAt(batch.moved.getOrDefault(target, t.position)))));
                batch.recopies.put(target, at.clusterTime());
            }
        }
        if (event.coll() == null) {
            // dropDatabase names its database; invalidate (a database stream's, after it) names none
            Tracked first = members.values().stream().filter(m -> !batch.recopies.containsKey(m.collection))
                    .filter(m -> event.db() == null || m.collection.db().equals(event.db()))
                    .min(Comparator.comparing(m -> m.collection.fullName())).orElse(null);
            if (first != null && ("dropDatabase".equals(type) || "invalidate".equals(type))) {
                log.warn("Change stream of {}: {} at {}", LogText.escape(db), type, event.clusterTime());
                batch.deliveries.add(new Delivery(first.handle, EventMapper.map(event, first.collection,
                        SourceOffset.streamAt(at), now)));
                batch.moved.put(first.collection, at);
            }
            return;
        }
        if (event.db() == null) {
            return; // no collection of any database: not one of the members' events
        }
        Namespace coll = new Namespace(event.db(), event.coll());
        Tracked m = members.get(coll);
        if (m == null || batch.recopies.containsKey(coll)) {
            return; // not read here (parked, or leaving for a copy)
        }
        if (batch.moved.getOrDefault(coll, m.position).covers(at)) {
            return;
        }
        Captured item = FilterExits.apply(m.filter, EventMapper.map(event, coll, SourceOffset.streamAt(at), now));
        if (item instanceof Captured.Control c) {
            log.warn("Change stream of {}: {}", LogText.escape(db), LogText.message(c.detail()));
        }
        batch.deliveries.add(new Delivery(m.handle, item));
        batch.moved.put(coll, at);
    }

    /**
     * After the batch was handed over: each collection stands after its last event, every collection at
     * least where the stream read to ({@code read}: everything before it was routed for all of them), and
     * the collections to copy again leave.
     */
    void handedOver(Batch batch, StreamPosition read, long now) {
        batch.moved.forEach((coll, at) -> {
            Tracked t = members.get(coll);
            if (t != null) {
                t.position = StreamPosition.max(t.position, at);
                t.lastRecordMs = now;
            }
        });
        advanceAll(read);
        batch.recopies.keySet().forEach(members::remove);
    }

    /** Every member stands at least at {@code at}: the stream read past it for all of them. */
    void advanceAll(StreamPosition at) {
        for (Tracked t : members.values()) {
            t.position = StreamPosition.max(t.position, at);
            t.afterCopy = false; // the stream read past its start: that history was there
        }
    }

    /** The heartbeats due now (see {@link HeartbeatPacer}); {@link #sent} once handed over. */
    List<Delivery> heartbeatsDue(long now) {
        List<Tracked> due = pacer.due(members.values(), t -> t.lastRecordMs, t -> !t.published(), now);
        List<Delivery> out = new ArrayList<>(due.size());
        for (Tracked t : due) {
            out.add(new Delivery(t.handle, new Captured.Heartbeat(SourceOffset.streamAt(t.position))));
        }
        return out;
    }

    /** Records handed over for these collections (heartbeats, notices) carried their current positions. */
    void sent(List<Delivery> deliveries, long now) {
        for (Delivery d : deliveries) {
            Tracked t = members.get(d.collection().ns());
            if (t != null) {
                t.lastRecordMs = now;
            }
        }
    }

    /** A collection passed an event without a record of its own (a skipped event): it stands after it. */
    void passed(Namespace collection, StreamPosition at, long now) {
        Tracked t = members.get(collection);
        if (t != null) {
            t.position = StreamPosition.max(t.position, at);
            t.lastRecordMs = now;
        }
    }

    /** Where a collection stands with this batch's events so far; null when the stream does not read it. */
    StreamPosition positionIn(Batch batch, Namespace collection) {
        Tracked t = members.get(collection);
        return t == null || batch.recopies.containsKey(collection) ? null : batch.moved.getOrDefault(collection, t.position);
    }

    /** Stops reading a collection; its handle, or null when the stream did not read it. */
    CollectionHandle remove(Namespace collection) {
        Tracked t = members.remove(collection);
        return t == null ? null : t.handle;
    }

    /** The handle of a collection the stream reads, or null. */
    CollectionHandle handle(Namespace collection) {
        Tracked t = members.get(collection);
        return t == null ? null : t.handle;
    }

    /** Distinct opening points of the members, ascending: where a stream would open for each. */
    List<StreamPosition> openingPoints() {
        return members.values().stream().map(t -> t.position.openingPoint()).distinct().sorted().toList();
    }

    /** The members the stream opens at {@code point} for, by name. */
    List<Namespace> at(StreamPosition point) {
        return members.values().stream().filter(t -> t.position.openingPoint().equals(point)).map(t -> t.collection)
                .sorted(Comparator.comparing(Namespace::fullName)).toList();
    }

    /** Removes and returns the members that stand before {@code oldestKept} (all of them when it is null), by name. */
    List<Lost> removeBefore(StreamPosition oldestKept) {
        List<Lost> lost = new ArrayList<>();
        for (Tracked t : members.values()) {
            if (oldestKept == null || t.position.openingPoint().compareTo(oldestKept) < 0) {
                lost.add(new Lost(t.handle, t.position, t.afterCopy));
            }
        }
        lost.sort(Comparator.comparing(l -> l.collection().ns().fullName()));
        lost.forEach(l -> members.remove(l.collection().ns()));
        return lost;
    }
}
