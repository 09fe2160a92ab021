package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.Document;
import dev.tideline.standin.OplogEntry.Op;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The versions of the documents of the namespaces read at a point in time ({@link PointInTimeReads}), so that such
 * a read is an {@code _id} lookup as on MongoDB (WiredTiger keeps the older versions of each record in its history
 * store: https://www.mongodb.com/docs/manual/reference/read-concern-snapshot/), not a walk of the oplog.
 *
 * <p>A namespace's history is built from the retained oplog the first time it is read this way, then kept with each
 * write. What it cannot know it says so ({@link Unknown}), and the read answers SnapshotTooOld as MongoDB does for a
 * time whose history it no longer holds: an update logged without its post-image before the namespace was first
 * read (the oplog keeps its description only), and a renamed collection's documents before the rename. (A time
 * before the oldest retained entry is refused by {@link IndexedOplog} before it gets here.) Not thread-safe:
 * {@link IndexedOplog} calls it under its lock.
 */
final class DocumentHistory {
    private static final Object ABSENT = new Object();
    private static final Object UNKNOWN = new Object();

    /** What a read at a time finds. */
    sealed interface Found permits Known, Unknown {
    }

    /** @param document the document then, null when there was none */
    record Known(Document document) implements Found {
    }

    /** The history does not reach that time for that document. */
    record Unknown() implements Found {
    }

    /** One document's versions: from each entry's timestamp on, its image, {@link #ABSENT} or {@link #UNKNOWN}. */
    private static final class Versions {
        final NavigableMap<Long, Object> states = new TreeMap<>(Long::compareUnsigned);
        /** whether the first write known created it (an insert): before that, it was not there */
        boolean createdByFirst;
    }

    private static final class Collection {
        final Map<Object, Versions> documents = new HashMap<>();
        /** the drops of the collection (and renames away): every document absent from then on */
        final NavigableMap<Long, Boolean> drops = new TreeMap<>(Long::compareUnsigned);
        /** before this time nothing is known (a rename's target: its documents came without entries) */
        long knownFrom;
    }

    private final Map<String, Collection> namespaces = new HashMap<>();

    boolean kept(String namespace) {
        return namespaces.containsKey(namespace);
    }

    /** Starts keeping {@code namespace}'s versions, from the entries the oplog still holds (oldest first). */
    void keep(String namespace, Iterable<OplogEntry> retained) {
        Collection c = new Collection();
        namespaces.put(namespace, c);
        for (OplogEntry e : retained) {
            if (e.txn() != null) {
                e.txn().ops().stream().filter(op -> op.ns().equals(namespace)).forEach(op -> note(c, op, imageOf(op)));
            } else if (e.ns().equals(namespace)) {
                note(c, e, imageOf(e));
            }
        }
    }

    /** A write, with the document as it left it (null for a delete, or when not known). */
    void wrote(OplogEntry e, Document image) {
        Collection c = namespaces.get(e.ns());
        if (c != null) {
            note(c, e, image);
        }
    }

    /** A write of a committed transaction: its document when the entry holds it. */
    void wrote(OplogEntry e) {
        wrote(e, imageOf(e));
    }

    /** Every collection of {@code database} was dropped at {@code ts}. */
    void droppedDatabase(String database, long ts) {
        namespaces.keySet().stream().filter(ns -> Namespaces.database(ns).equals(database)).forEach(ns -> dropped(ns, ts));
    }

    /** The collection was dropped (or renamed away) at {@code ts}. */
    void dropped(String namespace, long ts) {
        Collection c = namespaces.get(namespace);
        if (c != null) {
            c.drops.put(ts, Boolean.TRUE);
        }
    }

    /** Documents arrived in the collection without entries at {@code ts} (the target of a rename). */
    void arrivedWithoutEntries(String namespace, long ts) {
        Collection c = namespaces.get(namespace);
        if (c != null) {
            c.documents.clear();
            c.drops.clear();
            c.knownFrom = ts;
        }
    }

    /**
     * The document {@code id} of {@code namespace} as of {@code ts}.
     *
     * @param current the document now (the answer for one never written since the history began)
     */
    Found at(String namespace, Object id, long ts, Document current) {
        Collection c = namespaces.get(namespace);
        if (c == null || Long.compareUnsigned(ts, c.knownFrom) < 0) {
            return new Unknown();
        }
        Versions versions = c.documents.get(id);
        Map.Entry<Long, Object> state = versions == null ? null : versions.states.floorEntry(ts);
        Map.Entry<Long, Boolean> drop = c.drops.floorEntry(ts);
        if (drop != null && (state == null || Long.compareUnsigned(drop.getKey(), state.getKey()) > 0)) {
            return new Known(null);
        }
        if (state != null) {
            return state.getValue() == UNKNOWN ? new Unknown()
                    : new Known(state.getValue() == ABSENT ? null : (Document) state.getValue());
        }
        if (versions == null) {
            return new Known(current); // not written since the history began: as it is now
        }
        // written only after ts: before its first known write it was absent if that write created it
        return versions.createdByFirst ? new Known(null) : new Unknown();
    }

    private static void note(Collection c, OplogEntry e, Document image) {
        if (e.op() == Op.COMMAND || e.id() == null) {
            return;
        }
        Versions versions = c.documents.computeIfAbsent(e.id(), k -> new Versions());
        if (versions.states.isEmpty()) {
            versions.createdByFirst = e.op() == Op.INSERT;
        }
        versions.states.put(e.ts(), e.op() == Op.DELETE ? ABSENT : image == null ? UNKNOWN : image);
    }

    /** The document an entry left, when the entry holds it (insert, replace; an update's post-image); null otherwise. */
    private static Document imageOf(OplogEntry e) {
        return switch (e.op()) {
            case INSERT, REPLACE -> e.o();
            case UPDATE -> e.postImage();
            default -> null;
        };
    }
}
