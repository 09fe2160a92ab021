package dev.tideline.standin;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.memory.index.MemoryUniqueIndex;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.DuplicateKeyError;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A collection's unique index on {@code _id} that reads the key as {@code document.get("_id")}. MongoDB creates
 * this index with every collection and it refuses a second document with the same {@code _id}
 * (https://www.mongodb.com/docs/manual/indexes/#default-_id-index); a write finds its key with one B-tree descent.
 * mongo-java-server's index extracted the key through its generic path for any index (a dotted-path split with a
 * regular expression, streams, a map of keys), three times for each insert and again for each upsert, which made
 * the stand-in's {@code _id} index cost a third of a small insert.
 *
 * <p>Behaviour is mongo-java-server's, by construction: the same map of normalized {@link KeyValue}s (numbers of
 * any type equal to the same double, embedded documents normalized field by field, a missing {@code _id} equal to
 * {@code null}), the same {@link DuplicateKeyError} (code 11000, the same message). An array {@code _id}, which
 * MongoDB refuses ({@link StandInDatabase#checkId}) but which mongo-java-server indexes by element, takes the
 * generic path.
 */
final class IdUniqueIndex extends MemoryUniqueIndex {
    private static final String ID = "_id";
    private static final List<String> KEYS = List.of(ID);
    private static final Set<String> KEY_SET = Set.of(ID);

    /** @param key the single ascending or descending key {@code _id} */
    IdUniqueIndex(String name, IndexKey key) {
        super(name, List.of(key), false);
        if (!ID.equals(key.getKey())) {
            throw new IllegalArgumentException("an _id index on " + key.getKey());
        }
    }

    /** The stored {@code _id} as mongo-java-server reads it: {@link Missing} when the field is absent. */
    private static Object rawId(Document document) {
        return document.getOrMissing(ID);
    }

    /** The index key of an {@code _id}: mongo-java-server's {@code Utils.normalizeValue} (package-private there). */
    static Object normalized(Object value) {
        if (Missing.isNullOrMissing(value)) {
            return null;
        }
        if (value instanceof Long l && l != (long) l.doubleValue()) {
            return value; // a long no double holds stays a long
        }
        if (value instanceof Number n) {
            double d = n.doubleValue();
            return d == 0.0 ? 0.0 : d; // -0.0 is 0.0
        }
        if (value instanceof Map<?, ?> document) {
            Document normalized = new Document();
            for (Map.Entry<?, ?> field : document.entrySet()) {
                normalized.put((String) field.getKey(), normalized(field.getValue()));
            }
            return normalized;
        }
        if (value instanceof Collection<?> items) {
            List<Object> normalized = new ArrayList<>(items.size());
            items.forEach(item -> normalized.add(normalized(item)));
            return normalized;
        }
        return value;
    }

    private static KeyValue key(Object rawId) {
        return new KeyValue(normalized(rawId));
    }

    @Override
    protected List<String> keys() {
        return KEYS;
    }

    @Override
    protected Set<String> keySet() {
        return KEY_SET;
    }

    @Override
    public Set<KeyValue> getKeyValues(Document document) {
        Object id = rawId(document);
        return id instanceof Collection<?> ? super.getKeyValues(document) : Collections.singleton(key(id));
    }

    @Override
    public Integer getPosition(Document document) {
        Object id = rawId(document);
        return id instanceof Collection<?> ? super.getPosition(document) : getPosition(key(id));
    }

    @Override
    public synchronized void checkAdd(Document document, MongoCollection<Integer> collection) {
        Object id = rawId(document);
        if (id instanceof Collection<?>) {
            super.checkAdd(document, collection);
        } else if (containsKey(key(id))) {
            throw duplicate(id, collection);
        }
    }

    /** One map operation: the key is stored unless it is there, which is the duplicate check. */
    @Override
    public synchronized void add(Document document, Integer position, MongoCollection<Integer> collection) {
        Object id = rawId(document);
        if (id instanceof Collection<?>) {
            super.add(document, position, collection);
        } else if (!putKeyPosition(key(id), position)) {
            throw duplicate(id, collection);
        }
    }

    @Override
    public synchronized Integer remove(Document document) {
        Object id = rawId(document);
        return id instanceof Collection<?> ? super.remove(document) : removeDocument(key(id));
    }

    @Override
    public synchronized void checkUpdate(Document oldDocument, Document newDocument, MongoCollection<Integer> collection) {
        Object oldId = rawId(oldDocument);
        Object newId = rawId(newDocument);
        if (oldId instanceof Collection<?> || newId instanceof Collection<?>) {
            super.checkUpdate(oldDocument, newDocument, collection);
            return;
        }
        KeyValue oldKey = key(oldId);
        KeyValue newKey = key(newId);
        if (oldKey.equals(newKey)) {
            return;
        }
        Integer position = getPosition(newKey);
        if (position != null && !position.equals(getPosition(oldKey))) {
            throw duplicate(newId, collection);
        }
    }

    @Override
    public void updateInPlace(Document oldDocument, Document newDocument, Integer position, MongoCollection<Integer> collection) {
        Object oldId = rawId(oldDocument);
        Object newId = rawId(newDocument);
        if (oldId instanceof Collection<?> || newId instanceof Collection<?>) {
            super.updateInPlace(oldDocument, newDocument, position, collection);
            return;
        }
        KeyValue oldKey = key(oldId);
        if (oldKey.equals(key(newId))) {
            return; // MongoDB's _id is immutable: an update keeps it
        }
        Integer removed = remove(oldDocument);
        if (removed != null && !removed.equals(position)) {
            throw new IllegalStateException("the _id index held " + oldKey + " at " + removed + ", not at " + position);
        }
        add(newDocument, position, collection);
    }

    @Override
    protected boolean nullAwareEqualsKeys(Document oldDocument, Document newDocument) {
        Object oldId = rawId(oldDocument);
        Object newId = rawId(newDocument);
        if (oldId instanceof Collection<?> || newId instanceof Collection<?>) {
            return super.nullAwareEqualsKeys(oldDocument, newDocument);
        }
        return key(oldId).equals(key(newId));
    }

    /** mongo-java-server's error for this key, which names the key as stored (not normalized). */
    private DuplicateKeyError duplicate(Object rawId, MongoCollection<Integer> collection) {
        return new DuplicateKeyError(this, collection, getKeys(), new KeyValue(rawId));
    }
}
