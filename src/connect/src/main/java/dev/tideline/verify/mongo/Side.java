package dev.tideline.verify.mongo;

import dev.tideline.mongo.BsonOrder;
import dev.tideline.verify.IdRange;
import dev.tideline.verify.RangeDigest;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/** What verify asks of one side of a comparison ({@link CollectionSide} asks a MongoDB collection). */
interface Side {
    /** {@code source}, {@code destination}, {@code first peer}...: what messages and threads are named after. */
    String name();

    /** {@code db.collection}. */
    String namespace();

    /** Every document of {@code range} in {@code _id} order, without the ignored fields. */
    Cursor<RawBsonDocument> scan(IdRange range);

    /** The documents with these ids that exist, by id ({@link BsonOrder}: 1 and 1.0 are one key, as on the server). */
    Map<BsonValue, RawBsonDocument> lookup(List<BsonValue> ids);

    /** Server hashing: the digest of the next {@code limit} ids after {@code after}, with the last of them. */
    RangeDigest nextRangeDigest(BsonValue after, int limit);

    /** Server hashing: the digest of every document in {@code range}. */
    RangeDigest rangeDigest(IdRange range);

    /** Tries server hashing's operators; throws what the server answers when it lacks them. */
    void probeServerHashing();

    /** Server hashing: {@code {_id, h, b}} for each document of {@code range}, in {@code _id} order. */
    Cursor<BsonDocument> idHashes(IdRange range);
}
