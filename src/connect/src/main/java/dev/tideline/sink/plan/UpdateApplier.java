package dev.tideline.sink.plan;

import dev.tideline.sink.decode.UpdateDescription;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Applies update descriptions to a document in memory, as MongoDB applied them at the source. Pure.
 *
 * <p>Each description in order: arrays are cut first ({@code truncatedArrays}), then the updated paths
 * are set, then the removed paths unset. Within one description the paths never overlap except an
 * array's truncation with updates of its remaining elements, which give the same result either way.
 * Paths follow {@code $set}/{@code $unset} rules
 * (https://www.mongodb.com/docs/manual/reference/operator/update/set/): a changed field keeps its
 * position, a new one is appended, missing embedded documents on the way are created, a numeric part
 * indexes an array (padding it with nulls past its end), unsetting an array element sets it to null.
 * A path that cannot be applied (it crosses a scalar) means the destination document is not the one
 * the source changed: {@link NotApplicable}, never a guess.
 */
public final class UpdateApplier {
    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private UpdateApplier() {
    }

    /** A path that the destination document cannot take. */
    public static final class NotApplicable extends RuntimeException {
        NotApplicable(String message) {
            super(message);
        }
    }

    /** A new document: {@code base} (left untouched) with the descriptions applied in order. */
    public static BsonDocument apply(BsonDocument base, List<UpdateDescription> descriptions) {
        BsonDocument doc = mutableCopy(base);
        for (UpdateDescription d : descriptions) {
            for (UpdateDescription.Truncation t : d.truncatedArrays()) {
                BsonValue v = get(doc, t.field());
                if (v == null || !v.isArray()) {
                    throw new NotApplicable("truncatedArrays names '" + t.field() + "', which is not an array in the destination document");
                }
                BsonArray array = v.asArray();
                while (array.size() > t.newSize()) {
                    array.remove(array.size() - 1);
                }
            }
            for (var e : d.updatedFields().entrySet()) {
                set(doc, e.getKey(), mutable(e.getValue()));
            }
            for (String path : d.removedFields()) {
                unset(doc, path);
            }
        }
        return doc;
    }

    private static void set(BsonDocument doc, String path, BsonValue value) {
        String[] parts = path.split("\\.", -1);
        BsonValue container = doc;
        for (int i = 0; i < parts.length - 1; i++) {
            BsonValue next = child(container, parts[i], path);
            if (next == null) {
                next = new BsonDocument();
                put(container, parts[i], next, path);
            } else if (!next.isDocument() && !next.isArray()) {
                throw new NotApplicable("cannot set '" + path + "': '" + parts[i] + "' is a " + next.getBsonType()
                        + " in the destination document");
            }
            container = next;
        }
        put(container, parts[parts.length - 1], value, path);
    }

    private static void unset(BsonDocument doc, String path) {
        String[] parts = path.split("\\.", -1);
        BsonValue container = doc;
        for (int i = 0; i < parts.length - 1; i++) {
            container = child(container, parts[i], path);
            if (container == null || !(container.isDocument() || container.isArray())) {
                return; // nothing there to remove, as $unset
            }
        }
        String last = parts[parts.length - 1];
        if (container.isDocument()) {
            container.asDocument().remove(last);
        } else if (child(container, last, path) != null) {
            container.asArray().set(index(last, path), BsonNull.VALUE);
        }
    }

    private static BsonValue get(BsonDocument doc, String path) {
        BsonValue v = doc;
        for (String part : path.split("\\.", -1)) {
            if (v == null || !(v.isDocument() || v.isArray())) {
                return null;
            }
            v = child(v, part, path);
        }
        return v;
    }

    private static BsonValue child(BsonValue container, String part, String path) {
        if (container.isDocument()) {
            return container.asDocument().get(part);
        }
        if (!isIndex(part)) {
            throw new NotApplicable("path '" + path + "' names field '" + part + "' inside an array in the destination document");
        }
        int i = index(part, path);
        BsonArray array = container.asArray();
        return i < array.size() ? array.get(i) : null;
    }

    private static void put(BsonValue container, String part, BsonValue value, String path) {
        if (container.isDocument()) {
            container.asDocument().put(part, value); // an existing key keeps its position
            return;
        }
        if (!isIndex(part)) {
            throw new NotApplicable("path '" + path + "' names field '" + part + "' inside an array in the destination document");
        }
        int i = index(part, path);
        BsonArray array = container.asArray();
        while (array.size() <= i) {
            array.add(BsonNull.VALUE);
        }
        array.set(i, value);
    }

    private static boolean isIndex(String part) {
        return !part.isEmpty() && part.length() < 10 && part.chars().allMatch(Character::isDigit);
    }

    private static int index(String part, String path) {
        if (!isIndex(part)) {
            throw new NotApplicable("path '" + path + "': '" + part + "' is not an array index");
        }
        return Integer.parseInt(part);
    }

    private static BsonValue mutable(BsonValue v) {
        if (v.isDocument()) {
            return mutableCopy(v.asDocument());
        }
        if (v.isArray()) {
            BsonArray copy = new BsonArray();
            v.asArray().forEach(item -> copy.add(mutable(item)));
            return copy;
        }
        return v;
    }

    /** A deep, mutable copy: documents read from BSON bytes ({@link RawBsonDocument}) cannot be changed in place. */
    private static BsonDocument mutableCopy(BsonDocument doc) {
        RawBsonDocument raw = doc instanceof RawBsonDocument r ? r : new RawBsonDocument(doc, CODEC);
        return raw.decode(CODEC);
    }
}
