package dev.tideline.verify.mongo;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import dev.tideline.mongo.BsonOrder;
import dev.tideline.verify.IdRange;
import dev.tideline.verify.RangeDigest;
import dev.tideline.verify.ServerHashing;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.conversions.Bson;

/**
 * One side of a comparison: a collection, read as the server's bytes, in {@code _id} order. Top-level
 * fields verify ignores are projected away by the server (less to send) and left out again by the
 * comparison.
 */
final class CollectionSide implements Side {
    private static final Bson BY_ID = new BsonDocument("_id", new BsonInt32(1));

    private final String name;
    private final MongoCollection<RawBsonDocument> collection;
    private final Set<String> ignored;
    private final int batchSize;

    CollectionSide(String name, MongoCollection<RawBsonDocument> collection, Set<String> ignored, int batchSize) {
        this.name = name;
        this.collection = collection;
        this.ignored = ignored;
        this.batchSize = batchSize;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String namespace() {
        return collection.getNamespace().getFullName();
    }

    @Override
    public Cursor<RawBsonDocument> scan(IdRange range) {
        return new Prefetcher<>(name, "tideline-verify-" + name + "-" + namespace(), batchSize,
                () -> collection.find(range.filter()).projection(exclusion()).sort(BY_ID).batchSize(batchSize).cursor());
    }

    @Override
    public Map<BsonValue, RawBsonDocument> lookup(List<BsonValue> ids) {
        Map<BsonValue, RawBsonDocument> found = new TreeMap<>(BsonOrder.COMPARATOR);
        for (RawBsonDocument d : collection.find(Filters.in("_id", ids)).projection(exclusion()).batchSize(batchSize)) {
            found.put(d.get("_id"), d);
        }
        return found;
    }

    @Override
    public RangeDigest nextRangeDigest(BsonValue after, int limit) {
        return ServerHashing.digestOf(first(ServerHashing.nextRange(after, limit, ignored)));
    }

    @Override
    public RangeDigest rangeDigest(IdRange range) {
        return ServerHashing.digestOf(first(ServerHashing.rangeDigest(range, ignored)));
    }

    @Override
    public void probeServerHashing() {
        first(ServerHashing.probe(ignored));
    }

    @Override
    public Cursor<BsonDocument> idHashes(IdRange range) {
        return new Prefetcher<>(name, "tideline-verify-" + name + "-hashes-" + namespace(), batchSize,
                () -> collection.aggregate(ServerHashing.idHashes(range, ignored), BsonDocument.class).batchSize(batchSize).cursor());
    }

    private BsonDocument first(List<BsonDocument> pipeline) {
        return collection.aggregate(pipeline, BsonDocument.class).first();
    }

    private Bson exclusion() {
        if (ignored.isEmpty()) {
            return null;
        }
        BsonDocument exclude = new BsonDocument();
        ignored.forEach(f -> exclude.append(f, new BsonInt32(0)));
        return exclude;
    }
}
