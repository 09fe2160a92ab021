package dev.tideline.source;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Namespace;
import dev.tideline.log.LogText;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.kafka.connect.errors.ConnectException;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where {@code initial.sync=skip} starts, kept in the source where a restart finds it. Without it, a
 * task that crashed before its first offset commit would find no offset and start from a new "now",
 * and every change made in between would be lost. Each database gets one document per connector in
 * {@value #COLLECTION}: the instant the connector first captured it and the collections it had then.
 * Those stream from that instant (their earlier content is what skip skips); a collection that was not
 * there is new since, so all of it is change and it is copied. The I/O is here; the decision is
 * {@link StartPlanner}'s.
 */
final class SkipStarts {
    private static final Logger log = LoggerFactory.getLogger(SkipStarts.class);
    /** Excluded from capture like every _tideline* collection. */
    static final String COLLECTION = "_tideline_starts";
    static final String F_AT = "at";
    static final String F_COLLECTIONS = "collections";
    static final String F_CREATED = "created";
    /**
     * A database first met while the connector's other starts are at most this old is taken as there
     * from the start: several tasks starting together, or a restart before the first commit, agree on one
     * instant. One met later is new since: its collections are copied, instead of replaying the oplog
     * from an old instant (both are complete; a copy is cheaper).
     */
    static final int YOUNG_SECONDS = 600;

    private final MongoClient client;
    private final String connector;
    private final Map<String, StartPlanner.SkipStart.Anchor> anchors = new ConcurrentHashMap<>();
    private volatile BsonTimestamp taskStart;

    SkipStarts(MongoClient client, String connector) {
        this.client = client;
        this.connector = connector;
    }

    /** Takes the server's time once, before the task's first listing of the collections. */
    void beforeListing() {
        if (taskStart == null) {
            taskStart = ServerClock.streamStart(client.getDatabase("admin")); // hello needs no privilege
        }
    }

    /**
     * Makes sure every database of {@code listed} has its start; called before a discovery round plans
     * its new collections.
     *
     * @param listed            every namespace the connector captures (all tasks), as just listed
     * @param connectorHasState whether any of them has a committed offset (asked only when a start is new)
     */
    void ensure(Collection<Namespace> listed, BooleanSupplier connectorHasState) {
        Map<String, List<String>> byDb = new TreeMap<>();
        listed.forEach(ns -> byDb.computeIfAbsent(ns.db(), d -> new ArrayList<>()).add(ns.coll()));
        if (anchors.keySet().containsAll(byDb.keySet())) {
            return;
        }
        for (String db : byDb.keySet()) {
            if (!anchors.containsKey(db)) {
                BsonDocument found = starts(db).find(Filters.eq("_id", connector)).first();
                if (found != null) {
                    anchors.put(db, anchorOf(found));
                }
            }
        }
        BsonTimestamp now = ServerClock.streamStart(client.getDatabase(byDb.keySet().iterator().next()));
        boolean hasState = connectorHasState.getAsBoolean();
        for (Map.Entry<String, List<String>> e : byDb.entrySet()) {
            if (!anchors.containsKey(e.getKey())) {
                StartPlanner.SkipStart.Anchor fresh = StartPlanner.SkipStart.newAnchor(anchors.values(), hasState, now, taskStart,
                        e.getValue(), YOUNG_SECONDS);
                anchors.put(e.getKey(), take(e.getKey(), fresh));
            }
        }
    }

    /** The start of {@code ns}'s database; {@link #ensure} has run for it. */
    StartPlanner.SkipStart startOf(Namespace ns) {
        StartPlanner.SkipStart.Anchor a = anchors.get(ns.db());
        if (a == null) {
            throw new IllegalStateException("no skip start for " + ns.db() + ": ensure() runs first");
        }
        return a.startOf(ns.coll());
    }

    /** Writes {@code fresh} unless another task (or an earlier run) got there first; returns the one kept. */
    private StartPlanner.SkipStart.Anchor take(String db, StartPlanner.SkipStart.Anchor fresh) {
        BsonArray names = new BsonArray();
        fresh.collections().stream().sorted().forEach(n -> names.add(new BsonString(n)));
        FindOneAndUpdateOptions upsert = new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER);
        try {
            BsonDocument kept;
            try {
                kept = starts(db).findOneAndUpdate(Filters.eq("_id", connector), Updates.combine(Updates.setOnInsert(F_AT, fresh.at()),
                        Updates.setOnInsert(F_COLLECTIONS, names), Updates.setOnInsert(F_CREATED, new BsonDateTime(System.currentTimeMillis()))),
                        upsert);
            } catch (MongoException race) {
                if (!MongoErrors.isUniqueIndexConflict(race.getCode())) {
                    throw race;
                }
                kept = starts(db).find(Filters.eq("_id", connector)).first(); // two upserts raced: the other one is kept
            }
            StartPlanner.SkipStart.Anchor anchor = anchorOf(kept);
            log.info("initial.sync=skip: database {} starts at {} for connector {} ({} collection(s) there then; any other is "
                    + "copied), kept in {}.{}", LogText.escape(db), anchor.at(), connector, anchor.collections().size(),
                            LogText.escape(db), COLLECTION);
            return anchor;
        } catch (RuntimeException e) {
            if (MongoErrors.classify(e) == ErrorClass.AUTH) {
                throw new ConnectException("initial.sync=skip keeps the instant it starts from in " + db + "." + COLLECTION
                        + " (so that a restart before the first offset commit starts from the same instant, and loses nothing), "
                        + "and the source refused that write: " + e.getMessage() + ". Grant the connector's user find, insert "
                        + "and update on " + db + "." + COLLECTION + ", or set initial.sync to an ISO-8601 instant (which "
                        + "needs no write).", e);
            }
            throw e;
        }
    }

    /**
     * Forgets the connector's starts in {@code dbs}, so that a collection whose offset was reset starts
     * again from now (KIP-875 offset reset); a collection that still has an offset is not affected.
     */
    static void forget(MongoClient client, String connector, Collection<String> dbs) {
        for (String db : dbs) {
            long removed = client.getDatabase(db).getCollection(COLLECTION, BsonDocument.class)
                    .deleteOne(Filters.eq("_id", connector)).getDeletedCount();
            if (removed > 0) {
                log.info("initial.sync=skip: offsets of {} reset, so its start in {}.{} is forgotten: a collection without an "
                        + "offset starts from now", LogText.escape(db), LogText.escape(db), COLLECTION);
            }
        }
    }

    private MongoCollection<BsonDocument> starts(String db) {
        return client.getDatabase(db).getCollection(COLLECTION, BsonDocument.class);
    }

    private static StartPlanner.SkipStart.Anchor anchorOf(BsonDocument d) {
        BsonValue at = d.get(F_AT);
        BsonValue names = d.get(F_COLLECTIONS);
        if (at == null || !at.isTimestamp() || names == null || !names.isArray()) {
            throw new ConnectException("The skip start document " + d.toJson() + " in " + COLLECTION + " is not one this connector "
                    + "wrote (it needs '" + F_AT + "' as a timestamp and '" + F_COLLECTIONS + "' as an array). Delete it to start "
                    + "again from now.");
        }
        Set<String> collections = new HashSet<>();
        names.asArray().forEach(v -> collections.add(v.isString() ? v.asString().getValue() : v.toString()));
        return new StartPlanner.SkipStart.Anchor(at.asTimestamp(), collections);
    }
}
