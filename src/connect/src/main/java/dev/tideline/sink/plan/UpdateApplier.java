package dev.tideline.sink.plan;

import dev.tideline.event.ValueShape;
import dev.tideline.sink.decode.UpdateDescription;
import java.util.ArrayDeque;
import java.util.Deque;
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
 *
 * <p>Bounded as MongoDB bounds updates, checked before anything is built ({@link OutOfBounds}): a
 * path deeper than {@value #MAX_PATH_DEPTH} levels, or whose value would nest the document deeper than
 * that (https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-Nested-Depth-for-BSON-Documents),
 * and an array padded by more than {@value #MAX_PADDING} nulls (MongoDB's {@code kMaxPaddingAllowed} in
 * {@code src/mongo/db/update/path_support.h}: "can't backfill more than 1500000 elements"), also in
 * total over a batch ({@link PaddingBudget}).
 */
public final class UpdateApplier {
    /** MongoDB's nesting limit for stored documents, which also bounds the parts of an update path. */
    public static final int MAX_PATH_DEPTH = ValueShape.MONGODB_MAX_DOCUMENT_DEPTH;
    /** The most nulls MongoDB adds to an array to reach the index an update path names. */
    public static final int MAX_PADDING = 1_500_000;
    private static final int SHOWN_PATH_CHARS = 60;
    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private UpdateApplier() {
    }

    /** A path that the destination document cannot take. */
    public static final class NotApplicable extends RuntimeException {
        NotApplicable(String message) {
            super(message);
        }
    }

    /**
     * An update MongoDB itself would refuse whatever the document (too deep a path or result, too much
     * padding): the record is refused, whoever sent it.
     */
    public static final class OutOfBounds extends RuntimeException {
        private final int description;

        OutOfBounds(String message) {
            this(message, 0);
        }

        private OutOfBounds(String message, int description) {
            super(message);
            this.description = description;
        }

        /** Which of the descriptions given to {@link #apply} MongoDB would refuse (0 for the first). */
        public int description() {
            return description;
        }
    }

    /** A new document: {@code base} (left untouched) with the descriptions applied in order; padding bounded as for one batch. */
    public static BsonDocument apply(BsonDocument base, List<UpdateDescription> descriptions) {
        return apply(base, descriptions, new PaddingBudget());
    }

    /**
     * As {@link #apply(BsonDocument, List)}, the arrays' padding taken from the batch's {@code padding}.
     *
     * @throws NotApplicable when the destination document cannot take a path
     * @throws OutOfBounds   when MongoDB would refuse the update whatever the document
     */
    public static BsonDocument apply(BsonDocument base, List<UpdateDescription> descriptions, PaddingBudget padding) {
        long paddedBefore = padding.used();
        int current = 0;
        try {
            for (; current < descriptions.size(); current++) {
                checkDepths(descriptions.get(current));
            }
            BsonDocument doc = mutableCopy(base);
            for (current = 0; current < descriptions.size(); current++) {
                applyOne(doc, descriptions.get(current), padding);
            }
            return doc;
        } catch (OutOfBounds e) {
            padding.restore(paddedBefore); // nothing of a refused result is kept
            throw new OutOfBounds(e.getMessage(), current);
        } catch (RuntimeException | Error e) {
            padding.restore(paddedBefore);
            throw e;
        }
    }

    private static void applyOne(BsonDocument doc, UpdateDescription d, PaddingBudget padding) {
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
            set(doc, e.getKey(), mutable(e.getValue()), padding);
        }
        for (String path : d.removedFields()) {
            unset(doc, path);
        }
    }

    /**
     * What can be judged of the descriptions without the document, so that a record is refused as itself
     * before it is folded with others: every path within MongoDB's depth, and every value set with the depth
     * it adds. Nothing is split or copied.
     *
     * @throws OutOfBounds naming the description at fault
     */
    public static void checkDepths(List<UpdateDescription> descriptions) {
        for (int i = 0; i < descriptions.size(); i++) {
            try {
                checkDepths(descriptions.get(i));
            } catch (OutOfBounds e) {
                throw new OutOfBounds(e.getMessage(), i);
            }
        }
    }

    private static void checkDepths(UpdateDescription d) {
        for (var e : d.updatedFields().entrySet()) {
            int parts = checkPathDepth(e.getKey());
            int depth = parts + depth(e.getValue(), MAX_PATH_DEPTH - parts + 1);
            if (depth > MAX_PATH_DEPTH) {
                throw new OutOfBounds("setting '" + shown(e.getKey()) + "' would nest the document more than " + MAX_PATH_DEPTH
                        + " levels deep, MongoDB's limit for a document");
            }
        }
        d.removedFields().forEach(UpdateApplier::checkPathDepth);
        d.truncatedArrays().forEach(t -> checkPathDepth(t.field()));
    }

    /** @return the number of parts of {@code path}, counted without splitting it */
    private static int checkPathDepth(String path) {
        int parts = 1;
        for (int i = path.indexOf('.'); i >= 0; i = path.indexOf('.', i + 1)) {
            if (++parts > MAX_PATH_DEPTH) {
                throw new OutOfBounds("the path '" + shown(path) + "' has more than "
                        + MAX_PATH_DEPTH + " parts, MongoDB's limit for an update path and for a document's nesting");
            }
        }
        return parts;
    }

    /**
     * Levels of documents and arrays in {@code v} (0 for a scalar), without recursion, counted up to {@code limit}
     * (a deeper value reports {@code limit}).
     */
    private static int depth(BsonValue v, int limit) {
        int max = 0;
        Deque<Object[]> open = new ArrayDeque<>();
        open.push(new Object[] {v, 0});
        while (!open.isEmpty() && max < limit) {
            Object[] top = open.pop();
            BsonValue value = (BsonValue) top[0];
            int level = (int) top[1];
            if (value.isDocument()) {
                max = Math.max(max, level + 1);
                value.asDocument().values().forEach(child -> open.push(new Object[] {child, level + 1}));
            } else if (value.isArray()) {
                max = Math.max(max, level + 1);
                value.asArray().forEach(child -> open.push(new Object[] {child, level + 1}));
            }
        }
        return Math.min(max, limit);
    }

    /** A path as error messages show it: a long one cut, with its length said. */
    static String shown(String path) {
        return path.length() <= SHOWN_PATH_CHARS ? path : path.substring(0, SHOWN_PATH_CHARS) + "… (" + path.length() + " characters)";
    }

    private static void set(BsonDocument doc, String path, BsonValue value, PaddingBudget padding) {
        String[] parts = path.split("\\.", -1);
        BsonValue container = doc;
        for (int i = 0; i < parts.length - 1; i++) {
            BsonValue next = child(container, parts[i], path);
            if (next == null) {
                next = new BsonDocument();
                put(container, parts[i], next, path, padding);
            } else if (!next.isDocument() && !next.isArray()) {
                throw new NotApplicable("cannot set '" + path + "': '" + parts[i] + "' is a " + next.getBsonType()
                        + " in the destination document");
            }
            container = next;
        }
        put(container, parts[parts.length - 1], value, path, padding);
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

    private static void put(BsonValue container, String part, BsonValue value, String path, PaddingBudget padding) {
        if (container.isDocument()) {
            container.asDocument().put(part, value); // an existing key keeps its position
            return;
        }
        if (!isIndex(part)) {
            throw new NotApplicable("path '" + path + "' names field '" + part + "' inside an array in the destination document");
        }
        int i = index(part, path);
        BsonArray array = container.asArray();
        if (i > array.size()) {
            int nulls = i - array.size();
            if (nulls > MAX_PADDING) {
                throw new OutOfBounds("'" + shown(path) + "' would pad an array of " + array.size() + " elements with " + nulls
                        + " nulls: MongoDB pads at most " + MAX_PADDING + " (CannotBackfillArray)");
            }
            padding.take(nulls, path);
        }
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
