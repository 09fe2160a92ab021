package dev.tideline.sandbox;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Looks at the source and destination databases side by side: document counts, the highest
 * generator change number the destination holds, and whether both hold the same documents.
 */
final class DestinationProbe {
    private final MongoDatabase source;
    private final MongoDatabase destination;
    private final Map<String, Long> highestApplied = new ConcurrentHashMap<>();

    DestinationProbe(MongoDatabase source, MongoDatabase destination) {
        this.source = source;
        this.destination = destination;
    }

    long sourceCount(String collection) {
        return source.getCollection(collection).countDocuments();
    }

    long destinationCount(String collection) {
        return destination.getCollection(collection).countDocuments();
    }

    /**
     * The highest change number among the destination's documents, never going back: a delete leaves
     * no document behind, so a trailing delete counts as applied only once a later insert or update
     * lands (the apply lag may read one write too high meanwhile).
     */
    long highestApplied(String collection) {
        BsonDocument newest = destination.getCollection(collection, BsonDocument.class).find()
                .projection(Projections.include(ChangeGenerator.CHANGE_FIELD))
                .sort(Sorts.descending(ChangeGenerator.CHANGE_FIELD)).first();
        BsonValue n = newest == null ? null : newest.get(ChangeGenerator.CHANGE_FIELD);
        long now = n != null && n.isNumber() ? n.asNumber().longValue() : 0;
        return highestApplied.merge(collection, now, Math::max);
    }

    /**
     * Whether the destination holds exactly the source's documents. Compared as values, not bytes:
     * the json form (config/sink-example.json) may reorder fields, which BsonDocument equality ignores.
     */
    boolean sameDocuments(List<String> collections) {
        return collections.stream().allMatch(c -> documents(source, c).equals(documents(destination, c)));
    }

    private static Map<BsonValue, BsonDocument> documents(MongoDatabase db, String collection) {
        Map<BsonValue, BsonDocument> docs = new HashMap<>();
        db.getCollection(collection, BsonDocument.class).find().forEach(d -> docs.put(d.get("_id"), d));
        return docs;
    }
}
