package dev.tideline.standin;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.DatabaseResolver;
import de.bwaldvogel.mongo.backend.aggregation.Aggregation;
import de.bwaldvogel.mongo.bson.Document;
import java.util.List;
import java.util.stream.StreamSupport;

/**
 * An {@code aggregate} whose first stage is a {@code $match} with an equality on {@code _id} ({@link IdLookup}) reads
 * those documents through the {@code _id} index, as MongoDB's planner does for a leading {@code $match}
 * ("place the $match as early in the aggregation pipeline as possible... $match can take advantage of indexes",
 * https://www.mongodb.com/docs/manual/core/aggregation-pipeline-optimization/). mongo-java-server ran every pipeline
 * over the whole collection, so the driver's {@code countDocuments({_id: v})} (an aggregate of {@code $match} and
 * {@code $group}) examined every document. The other stages then run on the documents found, as they ran on the
 * documents the scan's {@code $match} kept.
 *
 * <p>Only this shape is answered here; anything else (no such {@code $match}, {@code explain}, {@code let}, a
 * stage that writes, a result larger than the first batch) goes the generic way.
 */
final class IdMatchAggregate {
    private static final int DEFAULT_BATCH_SIZE = 101;

    private IdMatchAggregate() {
    }

    /** The reply to {@code aggregate}, or null when the generic path answers it. */
    static Document answer(MongoDatabase database, Document aggregate, DatabaseResolver databases) {
        if (!(aggregate.get("aggregate") instanceof String collectionName) || aggregate.containsKey("explain")
                || aggregate.containsKey("let") || !(aggregate.get("pipeline") instanceof List<?> pipeline) || pipeline.isEmpty()
                || !(pipeline.get(0) instanceof Document first) || first.size() != 1
                || !(first.get("$match") instanceof Document filter) || IdLookup.candidates(filter) == null) {
            return null;
        }
        int batchSize = aggregate.get("cursor") instanceof Document cursor && cursor.get("batchSize") instanceof Number n
                ? n.intValue() : DEFAULT_BATCH_SIZE;
        MongoCollection<?> collection = database.resolveCollection(collectionName, false);
        if (collection == null) {
            return null;
        }
        Aggregation rest = Aggregation.fromPipeline(pipeline.subList(1, pipeline.size()), databases, database, collection, null);
        if (rest.isModifying()) {
            return null;
        }
        rest.validate(aggregate);
        List<Document> results = rest.runStages(StreamSupport.stream(collection.handleQuery(filter).spliterator(), false));
        if (results.size() > batchSize) {
            return null; // a cursor's batches: the generic path keeps them
        }
        return new Document("cursor", new Document("id", 0L).append("ns", database.getDatabaseName() + "." + collectionName)
                .append("firstBatch", results)).append("ok", 1.0);
    }
}
