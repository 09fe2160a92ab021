package dev.tideline.sink.check;

import java.util.Map;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Which shard key fields a record may put into the write filter (besides {@code _id}). Pure.
 *
 * <p>Field names become filter keys: a name starting with {@code $} would be a top-level query operator
 * ({@code $where}, {@code $or}), an empty path segment or a NUL cannot name a field. Values are matched
 * with {@code $eq} ({@link ExactMatch}), under the same rules as ids ({@link IdRules}): a shard key value
 * is never an array (https://www.mongodb.com/docs/manual/core/sharding-shard-key/#shard-key-indexes:
 * the shard key index cannot be multikey), nor a pattern or operator.
 */
public final class ShardKeys {
    private ShardKeys() {
    }

    /** @return why these shard key fields cannot go into a filter, or empty */
    public static Optional<String> problem(BsonDocument fields) {
        for (Map.Entry<String, BsonValue> f : fields.entrySet()) {
            Optional<String> name = pathProblem(f.getKey());
            if (name.isPresent()) {
                return Optional.of("shard key field " + name.get());
            }
            Optional<String> value = IdRules.problem(f.getValue(), "shard key field '" + f.getKey() + "'");
            if (value.isPresent()) {
                return value;
            }
        }
        return Optional.empty();
    }

    /** Why a (dotted) field path cannot name a shard key field, phrased after "field", or empty. */
    public static Optional<String> pathProblem(String path) {
        if (path.isEmpty()) {
            return Optional.of("'' is empty");
        }
        for (String part : path.split("\\.", -1)) {
            if (part.isEmpty()) {
                return Optional.of("'" + path + "' has an empty part");
            }
            if (part.startsWith("$")) {
                return Optional.of("'" + path + "' has a $-prefixed part, which a filter would read as an operator");
            }
            if (part.indexOf('\0') >= 0) {
                return Optional.of("'" + path.replace("\0", "\\0") + "' has a NUL character");
            }
        }
        return Optional.empty();
    }
}
