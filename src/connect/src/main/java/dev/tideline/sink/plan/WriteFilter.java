package dev.tideline.sink.plan;

import dev.tideline.bson.DottedPath;
import dev.tideline.sink.check.ExactMatch;
import dev.tideline.sink.check.IdRules;
import dev.tideline.sink.decode.SinkChange;
import java.util.List;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonValue;

/**
 * The filter a change's write or delete is sent with: {@code _id}, plus the destination's shard key
 * fields, every one matched with {@code $eq} ({@link ExactMatch}). Pure.
 *
 * <p>Why the shard key: on a sharded destination, an upserting replace must name the full shard key in
 * its filter (https://www.mongodb.com/docs/manual/reference/method/db.collection.replaceOne/#upsert-on-a-sharded-collection),
 * and with it every write and delete goes to the one shard that holds the document instead of all of them.
 * <ul>
 *   <li>{@code shard.key.fields} empty (default): the shard key fields the change carries, i.e. those of the
 *       source's {@code documentKey}. Right when the destination is sharded like the source (or not at all
 *       and the source's shard key values never change).</li>
 *   <li>{@code shard.key.fields} set (the destination's shard key, e.g. {@code region,customerId}): a write
 *       takes each from its document (a missing field matches as null, as MongoDB treats a missing shard
 *       key field); a delete, which has no document, takes those the change carries. {@code _id} alone for
 *       an unsharded destination, or one sharded on {@code _id}.</li>
 * </ul>
 */
public final class WriteFilter {
    private static final String ID = "_id";
    private final List<String> fields;

    /** @param fields the destination's shard key fields ({@code shard.key.fields}); empty: those the change carries */
    public WriteFilter(List<String> fields) {
        this.fields = List.copyOf(fields);
    }

    /** The filter for this change's write or delete. Call {@link #problem} first for writes. */
    public BsonDocument of(SinkChange c) {
        BsonDocument filter = ExactMatch.eq(ID, c.id());
        if (fields.isEmpty()) {
            c.shardKey().forEach((name, value) -> put(filter, name, value));
            return filter;
        }
        for (String field : fields) {
            if (c.document() != null) {
                put(filter, field, valueAt(c.document(), field).orElse(BsonNull.VALUE));
            } else if (c.shardKey().containsKey(field)) {
                put(filter, field, c.shardKey().get(field));
            }
        }
        return filter;
    }

    /** Why this change's document cannot be matched by the configured shard key fields (an array there), or empty. */
    public Optional<String> problem(SinkChange c) {
        if (fields.isEmpty() || c.document() == null) {
            return Optional.empty();
        }
        for (String field : fields) {
            Optional<BsonValue> v = valueAt(c.document(), field);
            if (v.isPresent()) {
                Optional<String> p = IdRules.problem(v.get(), "shard key field '" + field + "' (shard.key.fields)");
                if (p.isPresent()) {
                    return p;
                }
            }
        }
        return Optional.empty();
    }

    private static void put(BsonDocument filter, String name, BsonValue value) {
        if (!name.equals(ID)) {
            filter.put(name, new BsonDocument("$eq", value));
        }
    }

    /** The value at a dotted path ({@link DottedPath}); empty when nothing is there (present when it holds null). */
    private static Optional<BsonValue> valueAt(BsonDocument doc, String path) {
        return Optional.ofNullable(DottedPath.get(doc, path));
    }
}
