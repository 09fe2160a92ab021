package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import dev.tideline.standin.ChangeStreamSpec.BeforeChange;
import dev.tideline.standin.ChangeStreamSpec.Scope;
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
 * An event is made in two steps, in the order of MongoDB's change-stream stages: {@link #of} transforms the entry,
 * the cursor drops what is at or before its resume point, and only then {@link #withImages} looks up the
 * post-image ({@code updateLookup}) and adds the recorded images (a required one missing: 47).
 */
final class ChangeEvents {
    private static final Set<String> EXPANDED = Set.of("create", "createIndexes", "dropIndexes", "collMod");

    private final IndexedOplog oplog;

    ChangeEvents(IndexedOplog oplog) {
        this.oplog = oplog;
    }

    /** A change event without its images yet, its resume token, and the entry it was made from. */
    record Event(Document document, ResumeToken token, OplogEntry entry) {
    }

    /** The events {@code spec}'s stream sees for {@code entry}, in order, without images; empty when none. */
    List<Event> of(OplogEntry entry, ChangeStreamSpec spec) {
        if (entry.fromMigrate() && !spec.showMigrationEvents()) {
            return List.of(); // a chunk migration's writes are not changes of the data (ChunkMigration)
        }
        if (entry.op() != OplogEntry.Op.COMMAND) {
            return spec.covers(entry.ns()) ? List.of(crud(entry, ResumeToken.event(entry.ts()))) : List.of();
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
            case "applyOps" -> transaction(entry, spec);
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

    /**
     * The events of a committed transaction, in the order its operations ran: each at the commit's cluster time, its
     * resume token carrying the operation's index in the transaction ({@code txnOpIndex}: the token orders them, and a
     * stream resumed at one gets the ones after it), with the transaction's {@code lsid} and {@code txnNumber}
     * (https://www.mongodb.com/docs/manual/reference/change-events/: present only for operations of a multi-document
     * transaction). The index counts every operation of the transaction, also those this stream does not see.
     */
    private List<Event> transaction(OplogEntry entry, ChangeStreamSpec spec) {
        OplogEntry.Transaction txn = entry.txn();
        List<Event> out = new java.util.ArrayList<>();
        for (int i = 0; i < txn.ops().size(); i++) {
            OplogEntry op = txn.ops().get(i);
            if (spec.covers(op.ns())) {
                Event event = crud(op, ResumeToken.event(entry.ts(), i));
                event.document().append("lsid", txn.lsid().cloneDeeply()).append("txnNumber", txn.txnNumber());
                out.add(event);
            }
        }
        return out;
    }

    private List<Event> rename(OplogEntry entry, ChangeStreamSpec spec) {
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

    private List<Event> expanded(OplogEntry entry, ChangeStreamSpec spec) {
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
        return List.of(new Event(event, ResumeToken.event(entry.ts()), entry));
    }

    private static List<Event> invalidating(Document event, boolean invalidates, OplogEntry entry) {
        Event made = new Event(event, ResumeToken.event(entry.ts()), entry);
        if (!invalidates) {
            return List.of(made);
        }
        ResumeToken token = ResumeToken.invalidate(entry.ts());
        Document invalidate = new Document("_id", token.toDocument())
                .append("operationType", "invalidate")
                .append("clusterTime", entry.clusterTime())
                .append("wallTime", entry.wall());
        return List.of(made, new Event(invalidate, token, entry));
    }

    private static Document command(OplogEntry entry, String type) {
        return new Document("_id", ResumeToken.event(entry.ts()).toDocument())
                .append("operationType", type)
                .append("clusterTime", entry.clusterTime())
                .append("wallTime", entry.wall());
    }

    private static Event crud(OplogEntry e, ResumeToken token) {
        String type = switch (e.op()) {
            case INSERT -> "insert";
            case UPDATE -> "update";
            case REPLACE -> "replace";
            default -> "delete";
        };
        Document event = new Document("_id", token.toDocument())
                .append("operationType", type)
                .append("clusterTime", e.clusterTime())
                .append("wallTime", e.wall())
                .append("ns", ns(e.ns()))
                .append("documentKey", new Document("_id", e.id()));
        switch (e.op()) {
            case INSERT, REPLACE -> event.append("fullDocument", e.o());
            case UPDATE -> event.append("updateDescription", e.o());
            default -> {
            }
        }
        return new Event(event, token, e);
    }

    /**
     * {@code event}'s document with the images {@code spec} asks for: an update's {@code fullDocument}
     * (looked up now, or its recorded post-image) and the {@code fullDocumentBeforeChange} of updates,
     * replaces and deletes.
     *
     * @throws de.bwaldvogel.mongo.exception.MongoServerError NoMatchingDocument (47) when a required image was not recorded
     */
    Document withImages(Event event, ChangeStreamSpec spec) {
        OplogEntry e = event.entry();
        Document document = event.document();
        if (e.op() == OplogEntry.Op.UPDATE) {
            switch (spec.fullDocument()) {
                case UPDATE_LOOKUP -> document.append("fullDocument", oplog.current(e.ns(), e.id()));
                case WHEN_AVAILABLE -> document.append("fullDocument", e.postImage());
                case REQUIRED -> document.append("fullDocument", required(e.postImage(), "post-image", document));
                default -> {
                    // without a fullDocument option MongoDB leaves it out of update events
                }
            }
        }
        if ((e.op() == OplogEntry.Op.UPDATE || e.op() == OplogEntry.Op.REPLACE || e.op() == OplogEntry.Op.DELETE)
                && spec.beforeChange() != BeforeChange.OFF) {
            document.append("fullDocumentBeforeChange", spec.beforeChange() == BeforeChange.REQUIRED
                    ? required(e.preImage(), "pre-image", document) : e.preImage());
        }
        return document;
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
