package dev.tideline.it.support.standin;

import de.bwaldvogel.mongo.bson.Document;
import dev.tideline.it.support.standin.ChangeStreamSpec.BeforeChange;
import dev.tideline.it.support.standin.ChangeStreamSpec.Scope;
import java.util.List;
import java.util.Set;

/**
 * Turns oplog entries into the change events a stream sees, in MongoDB's documented shapes
 * (https://www.mongodb.com/docs/manual/reference/change-events/):
 * <ul>
 *   <li>insert, update, replace, delete with {@code ns}, {@code documentKey}, {@code clusterTime},
 *       {@code wallTime}, the update's {@code updateDescription}, and the images the stream asked for;</li>
 *   <li>a collection stream sees {@code drop} or {@code rename} (from or to its collection) followed by
 *       {@code invalidate}; a database stream sees {@code drop} and {@code rename} without invalidate,
 *       and {@code dropDatabase} followed by {@code invalidate}; a deployment stream is never invalidated
 *       (https://www.mongodb.com/docs/manual/reference/change-events/invalidate/);</li>
 *   <li>{@code create}, {@code createIndexes}, {@code dropIndexes} and {@code modify} only with
 *       {@code showExpandedEvents: true} (https://www.mongodb.com/docs/manual/reference/change-events/#expanded-events).</li>
 * </ul>
 */
final class ChangeEvents {
    private static final Set<String> EXPANDED = Set.of("create", "createIndexes", "dropIndexes", "collMod");

    private final IndexedOplog oplog;

    ChangeEvents(IndexedOplog oplog) {
        this.oplog = oplog;
    }

    /** The events {@code spec}'s stream sees for {@code entry}, in order; empty when none. */
    List<Document> of(OplogEntry entry, ChangeStreamSpec spec) {
        if (entry.op() != OplogEntry.Op.COMMAND) {
            return spec.covers(entry.ns()) ? List.of(crud(entry, spec)) : List.of();
        }
        String db = entry.database();
        Document o = entry.o();
        return switch (entry.command()) {
            case "drop" -> {
                String ns = db + "." + o.get("drop");
                if (!spec.covers(ns)) {
                    yield List.of();
                }
                yield invalidating(command(entry, "drop").append("ns", ns(ns)), spec.scope() == Scope.COLLECTION, entry);
            }
            case "renameCollection" -> rename(entry, spec);
            case "dropDatabase" -> {
                boolean seen = switch (spec.scope()) {
                    case COLLECTION -> false; // it saw its collection's drop, logged before this
                    case DATABASE -> db.equals(spec.database());
                    case CLUSTER -> !Namespaces.INTERNAL_DATABASES.contains(db);
                };
                if (!seen) {
                    yield List.of();
                }
                yield invalidating(command(entry, "dropDatabase").append("ns", new Document("db", db)),
                        spec.scope() == Scope.DATABASE, entry);
            }
            default -> expanded(entry, spec);
        };
    }

    private List<Document> rename(OplogEntry entry, ChangeStreamSpec spec) {
        String from = String.valueOf(entry.o().get("renameCollection"));
        String to = String.valueOf(entry.o().get("to"));
        boolean collection = spec.scope() == Scope.COLLECTION;
        // "A rename event leads to an invalidate event for streams opened against the event's ns collection or to collection."
        boolean seen = collection ? spec.covers(from) || spec.covers(to) : spec.covers(from);
        if (!seen) {
            return List.of();
        }
        Document event = command(entry, "rename").append("ns", ns(from)).append("to", ns(to));
        if (spec.showExpandedEvents()) {
            Document description = new Document("to", ns(to));
            if (entry.o().get("dropTarget") != null) {
                description.append("dropTarget", entry.o().get("dropTarget"));
            }
            event.append("operationDescription", description);
        }
        return invalidating(event, collection, entry);
    }

    private List<Document> expanded(OplogEntry entry, ChangeStreamSpec spec) {
        String command = entry.command();
        if (!spec.showExpandedEvents() || !EXPANDED.contains(command)) {
            return List.of();
        }
        String ns = entry.database() + "." + entry.o().get(command);
        if (!spec.covers(ns)) {
            return List.of();
        }
        Document description = new Document();
        entry.o().forEach((k, v) -> {
            if (!k.equals(command) && !k.equals("nsType") && !k.equals("stateBeforeChange")) {
                description.append(k, v);
            }
        });
        String type = command.equals("collMod") ? "modify" : command;
        Document event = command(entry, type).append("ns", ns(ns)).append("operationDescription", description);
        if (entry.o().get("stateBeforeChange") != null) {
            event.append("stateBeforeChange", entry.o().get("stateBeforeChange"));
        }
        if (command.equals("create")) {
            event.append("nsType", entry.o().getOrDefault("nsType", "collection"));
        }
        return List.of(event);
    }

    private static List<Document> invalidating(Document event, boolean invalidates, OplogEntry entry) {
        if (!invalidates) {
            return List.of(event);
        }
        Document invalidate = new Document("_id", ResumeToken.invalidate(entry.ts()).toDocument())
                .append("operationType", "invalidate")
                .append("clusterTime", entry.clusterTime())
                .append("wallTime", entry.wall());
        return List.of(event, invalidate);
    }

    private static Document command(OplogEntry entry, String type) {
        return new Document("_id", ResumeToken.event(entry.ts()).toDocument())
                .append("operationType", type)
                .append("clusterTime", entry.clusterTime())
                .append("wallTime", entry.wall());
    }

    private Document crud(OplogEntry e, ChangeStreamSpec spec) {
        String type = switch (e.op()) {
            case INSERT -> "insert";
            case UPDATE -> "update";
            case REPLACE -> "replace";
            default -> "delete";
        };
        Document event = new Document("_id", ResumeToken.event(e.ts()).toDocument())
                .append("operationType", type)
                .append("clusterTime", e.clusterTime())
                .append("wallTime", e.wall())
                .append("ns", ns(e.ns()))
                .append("documentKey", new Document("_id", e.id()));
        switch (e.op()) {
            case INSERT, REPLACE -> event.append("fullDocument", e.o());
            case UPDATE -> {
                event.append("updateDescription", e.o());
                switch (spec.fullDocument()) {
                    case UPDATE_LOOKUP -> event.append("fullDocument", oplog.current(e.ns(), e.id()));
                    case WHEN_AVAILABLE -> event.append("fullDocument", e.postImage());
                    case REQUIRED -> event.append("fullDocument", required(e.postImage(), "post-image", event));
                    default -> {
                        // without a fullDocument option MongoDB leaves it out of update events
                    }
                }
            }
            default -> {
            }
        }
        if (e.op() != OplogEntry.Op.INSERT && spec.beforeChange() != BeforeChange.OFF) {
            event.append("fullDocumentBeforeChange", spec.beforeChange() == BeforeChange.REQUIRED
                    ? required(e.preImage(), "pre-image", event) : e.preImage());
        }
        return event;
    }

    /** MongoDB's answer when a required image was not recorded: NoMatchingDocument (47). */
    private static Document required(Document image, String what, Document event) {
        if (image == null) {
            throw ServerErrors.error(ServerErrors.NO_MATCHING_DOCUMENT, "NoMatchingDocument",
                    "Change stream was configured to require a " + what + " for all update, delete and replace events, but the "
                            + what + " was not found for event: " + event.get("_id"));
        }
        return image;
    }

    private static Document ns(String namespace) {
        return new Document("db", Namespaces.database(namespace)).append("coll", Namespaces.collection(namespace));
    }
}
