package dev.tideline.source;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.capture.CopyPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a split copy's chunks meet ({@link CopyPlan}): the {@code _id}s at documents {@code n/k, 2n/k ...} in
 * {@code _id} order, found by walking the {@code _id} index forward ONCE. Each bound is found from the one
 * before (a keyset page: {@code find({_id: {$gt: previous}}).sort({_id: 1}).skip(step - 1).limit(1)},
 * projected to {@code _id}: an index walk, no document read), so the server examines about
 * {@code n·(k−1)/k} index keys in all, instead of {@code n·(k−1)/2} when every bound skips from the start
 * (1.75 billion keys for 500 million documents and 8 tasks). Through mongos a skip is applied by the
 * router, so each shard sends up to one step of {@code _id}s per bound, not up to {@code n}.
 *
 * <p>Every find carries its own {@code maxTimeMS}, which overrides a MongoDB 8.0 cluster's
 * {@code defaultMaxTimeMS} (https://www.mongodb.com/docs/manual/reference/cluster-parameters/defaultMaxTimeMS/:
 * a find without its own gets that limit, and its MaxTimeMSExpired, 50, is a transient error to a reader that
 * would retry the same walk for ever). A bound that cannot be found in that time ends the planning with
 * {@link NotFoundInTime}, never a retry: the same walk would take as long again.
 */
final class SplitBounds {
    /** How long the server may walk the index for one bound: one step of a 500 million document collection takes seconds. */
    static final long BOUND_MAX_TIME_MS = 60_000;
    private static final BsonDocument BY_ID = new BsonDocument("_id", new BsonInt32(1));
    private static final Logger log = LoggerFactory.getLogger(SplitBounds.class);

    /** A bound could not be found within {@code maxTimeMS}. */
    static final class NotFoundInTime extends RuntimeException {
        NotFoundInTime(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private SplitBounds() {
    }

    /**
     * The bounds ({@link #find}), or none when one cannot be found within {@link #BOUND_MAX_TIME_MS}: the
     * error is logged naming the bound, and the copy is not split (its owner copies it whole) instead of
     * the planning being tried again.
     */
    static List<BsonValue> findOrUnsplit(MongoCollection<RawBsonDocument> coll, long estimated, int chunks) {
        try {
            return find(coll, estimated, chunks, BOUND_MAX_TIME_MS);
        } catch (NotFoundInTime e) {
            log.error("Copy of {} is not split across tasks: {}", coll.getNamespace(), e.getMessage());
            return List.of();
        }
    }

    /**
     * @param estimated the collection's estimated document count
     * @param chunks    how many chunks ({@link CopyPlan#chunkCount})
     * @return the bounds in increasing order; fewer when the collection holds fewer documents than estimated
     * @throws NotFoundInTime when the server could not find a bound within {@code maxTimeMs}
     */
    static List<BsonValue> find(MongoCollection<RawBsonDocument> coll, long estimated, int chunks, long maxTimeMs) {
        return find(coll, estimated, chunks, maxTimeMs, Integer.MAX_VALUE);
    }

    /** @param maxSkip the largest skip of one find (a server takes an int); longer steps take several keyset pages */
    static List<BsonValue> find(MongoCollection<RawBsonDocument> coll, long estimated, int chunks, long maxTimeMs, int maxSkip) {
        List<BsonValue> bounds = new ArrayList<>();
        BsonValue previous = null;
        long previousAt = -1;
        for (long at : CopyPlan.boundPositions(estimated, chunks)) {
            if (at <= previousAt) {
                continue; // fewer documents than chunks: positions repeat
            }
            BsonValue id = previous;
            long remaining = at - previousAt - 1; // the documents to pass after the previous bound
            while (true) {
                // a step over 2^31 documents is walked in several keyset pages, each after the _id the last one found
                int skip = (int) Math.min(remaining, maxSkip);
                id = next(coll, id, skip, maxTimeMs, at, estimated);
                if (id == null || skip == remaining) {
                    break;
                }
                remaining -= skip + 1L;
            }
            if (id == null) {
                break; // fewer documents than estimated: fewer chunks
            }
            bounds.add(id);
            previous = id;
            previousAt = at;
        }
        return bounds;
    }

    /** The {@code _id} {@code skip} places after {@code after} (from the first when null), or null past the end. */
    private static BsonValue next(MongoCollection<RawBsonDocument> coll, BsonValue after, int skip, long maxTimeMs, long at,
                                  long estimated) {
        BsonDocument filter = after == null ? new BsonDocument() : new BsonDocument("_id", new BsonDocument("$gt", after));
        RawBsonDocument found;
        try {
            found = coll.find(filter).sort(BY_ID).projection(BY_ID).skip(skip).limit(1).maxTime(maxTimeMs, TimeUnit.MILLISECONDS).first();
        } catch (MongoException e) {
            if (MongoErrors.isTimeLimitExceeded(e)) {
                throw new NotFoundInTime("the _id at document " + at + " of about " + estimated + " of " + coll.getNamespace()
                        + " was not found within maxTimeMS " + maxTimeMs + " ms (MaxTimeMSExpired): the server walked its _id index "
                        + "for one chunk's worth of documents for that long. Check the server's load; the copy is not split across "
                        + "tasks (its owner copies it whole)", e);
            }
            throw e;
        }
        return found == null ? null : found.get("_id");
    }
}
