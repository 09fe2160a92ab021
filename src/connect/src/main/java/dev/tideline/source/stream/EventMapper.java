package dev.tideline.source.stream;

import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.capture.SourceOffset;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * What one change-stream event becomes for its collection. Pure.
 *
 * <p>Accepts {@code update} events that carry a whole document as well as {@code replace} events, and
 * treats a {@code fullDocument} without {@code _id} as a missing one: the document is gone and the
 * delete that follows removes it. DDL events are reported (control records; a drop is applied by
 * {@code drop.policy} from them, see {@code DropMarkers}); events
 * without an identifiable document are reported loudly, never dropped silently.
 */
final class EventMapper {
    private EventMapper() {
    }

    /**
     * @param offset the collection's position right after this event
     * @param nowMs  the wall time to use when the server sent none and the event has no cluster time
     */
    static Captured map(RawChangeEvent event, Namespace ns, SourceOffset offset, long nowMs) {
        String type = event.type() == null ? "" : event.type();
        BsonTimestamp clusterTime = event.clusterTime();
        long wall = event.wallTime() != null ? event.wallTime()
                : clusterTime != null ? Integer.toUnsignedLong(clusterTime.getTime()) * 1000L : nowMs;
        switch (type) {
            case "insert", "update", "replace" -> {
                RawBsonDocument full = event.fullDocument();
                BsonDocument doc = full != null && full.containsKey("_id") ? full : null;
                BsonValue id = event.documentId() != null ? event.documentId() : doc != null ? doc.get("_id") : null;
                Op op = type.equals("insert") ? Op.INSERT : type.equals("update") ? Op.UPDATE : Op.REPLACE;
                return id == null ? unidentified(type, ns, offset, clusterTime)
                        : new Captured.Change(ChangeEvent.of(op, ns, id, doc, clusterTime, wall)
                                .withDocumentKey(event.documentKey()), offset, event.before(), event.transaction()); // shard key fields travel with it
            }
            case "delete" -> {
                BsonValue id = event.documentId();
                return id == null ? unidentified(type, ns, offset, clusterTime)
                        : new Captured.Change(ChangeEvent.delete(ns, id, clusterTime, wall)
                                .withDocumentKey(event.documentKey()), offset, event.before(), event.transaction());
            }
            case "drop", "rename", "dropDatabase", "invalidate" -> {
                // what follows from it downstream is said where it is decided (DropMarkers)
                String detail = type + " of " + ns
                        + (event.destination() != null ? " to " + event.destination() : "")
                        + (clusterTime != null ? " at " + clusterTime : "");
                return new Captured.Control(ControlType.ofEvent(type), detail, offset);
            }
            default -> {
                // createIndexes, modify, shardCollection... (showExpandedEvents is off): the position moves only
                return new Captured.Heartbeat(offset);
            }
        }
    }

    /** A change whose document cannot be identified: reported loudly, never dropped silently. */
    private static Captured unidentified(String type, Namespace ns, SourceOffset offset, BsonTimestamp clusterTime) {
        String detail = type + " event on " + ns + " at " + clusterTime + " carries no _id (no documentKey._id, no document): "
                + "it cannot be applied downstream; if a later event for the same document follows, it repairs this one";
        return new Captured.Control(ControlType.UNIDENTIFIED_CHANGE, detail, offset);
    }
}
