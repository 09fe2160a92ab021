package dev.tideline.standin;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.DollarPrefixedFieldNameException;
import de.bwaldvogel.mongo.exception.InvalidIdFieldError;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * mongo-java-server's in-memory database whose collections refuse the {@code _id}s MongoDB refuses
 * (https://www.mongodb.com/docs/manual/core/document/#field-names: "its value must be unique in the
 * collection, is immutable, and may be of any type other than an array or regex. If the _id contains
 * subfields, the subfield names cannot begin with a ($) symbol."). The stand-in refused arrays only.
 */
public final class StandInDatabase extends MemoryDatabase {

    /** Index keys walked by queries its collections answered from their ordered {@code _id} index ({@link OrderedIdIndex}). */
    private final LongAdder keysExamined;

    public StandInDatabase(String databaseName, CursorRegistry cursorRegistry) {
        this(databaseName, cursorRegistry, new LongAdder());
    }

    /** @param keysExamined where index keys walked are counted (the server's total) */
    public StandInDatabase(String databaseName, CursorRegistry cursorRegistry, LongAdder keysExamined) {
        super(databaseName, cursorRegistry);
        this.keysExamined = keysExamined;
    }

    @Override
    protected MemoryCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
        return new IdCheckingCollection(this, collectionName, options, cursorRegistry, keysExamined);
    }

    /** Throws MongoDB's error for an {@code _id} it would not store. */
    static void checkId(Object id) {
        if (id instanceof java.util.Collection<?>) {
            throw new InvalidIdFieldError("The '_id' value cannot be of type array");
        }
        if (BsonRegularExpression.isRegularExpression(id)) {
            throw new MongoServerError(ServerErrors.BAD_VALUE, "BadValue", "can't use a regex for _id");
        }
        if (id instanceof Map<?, ?> document) {
            checkFieldNames(document);
        }
    }

    private static void checkFieldNames(Map<?, ?> document) {
        for (Map.Entry<?, ?> field : document.entrySet()) {
            String name = String.valueOf(field.getKey());
            if (name.startsWith("$")) {
                throw new DollarPrefixedFieldNameException("_id fields may not contain '$'-prefixed fields: " + name
                        + " is not valid for storage.");
            }
            if (field.getValue() instanceof Map<?, ?> inner) {
                checkFieldNames(inner);
            } else if (field.getValue() instanceof java.util.Collection<?> items) {
                for (Object item : items) {
                    if (item instanceof Map<?, ?> inner) {
                        checkFieldNames(inner);
                    }
                }
            }
        }
    }

    /**
     * {@code {_id: {$eq: v}}} as {@code {_id: v}} where the two mean the same: v neither a regex (a pattern
     * in the second form), nor an array, nor a document with a {@code $}-prefixed key (an operator in the
     * second form). Any other query is returned as it is.
     */
    static Document idEqualityAsLookup(Document query) {
        if (query == null || query.size() != 1 || !(query.get("_id") instanceof Document condition)
                || condition.size() != 1 || !condition.containsKey("$eq")) {
            return query;
        }
        Object value = condition.get("$eq");
        if (value instanceof java.util.Collection<?> || BsonRegularExpression.isRegularExpression(value)) {
            return query;
        }
        if (value instanceof Document d && d.keySet().stream().anyMatch(k -> k.startsWith("$"))) {
            return query;
        }
        return new Document("_id", value);
    }

    private static final class IdCheckingCollection extends MemoryCollection {
        private final OrderedIdIndex ids;

        IdCheckingCollection(MongoDatabase database, String collectionName, CollectionOptions options, CursorRegistry cursorRegistry,
                             LongAdder keysExamined) {
            super(database, collectionName, options, cursorRegistry);
            this.ids = new OrderedIdIndex(keysExamined);
        }

        @Override
        protected Integer addDocumentInternal(Document document) {
            Integer position = super.addDocumentInternal(document);
            ids.add(document.get("_id"), position);
            return position;
        }

        @Override
        protected void removeDocument(Integer position) {
            Document document = getDocument(position);
            if (document != null) {
                ids.remove(document.get("_id"));
            }
            super.removeDocument(position);
        }

        /**
         * {@code {_id: {$eq: v}}} is answered from the {@code _id} index, as MongoDB answers it (an equality
         * match on {@code _id} is an IDHACK/index point lookup,
         * https://www.mongodb.com/docs/manual/reference/operator/query/eq/); mongo-java-server's index takes
         * only {@code {_id: v}} and {@code $in}, so it scanned the whole collection for every such write.
         */
        @Override
        protected QueryResult queryDocuments(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                                             Document fieldSelector) {
            // an _id range sorted by _id walks the ordered _id index from the range's start, as MongoDB's IXSCAN does
            java.util.stream.Stream<Document> walked = ids.walk(query, orderBy, this::getDocument, d -> documentMatchesQuery(d, query));
            if (walked != null) {
                return matchDocumentsFromStream(query, walked, numberToSkip, limit, batchSize, null, fieldSelector);
            }
            return super.queryDocuments(DeprecatedTypeAliases.dropped(idEqualityAsLookup(query), this::holds), orderBy, numberToSkip,
                    limit, batchSize, fieldSelector);
        }

        /** Whether a document holds a value written with BSON {@code type} at {@code path} (or in an array there). */
        private boolean holds(String path, byte type) {
            if (!LosslessValues.holdsAny(type)) {
                return false; // no such value anywhere: no need to read the collection
            }
            String[] parts = path.split("\\.");
            return streamAllDocumentsWithPosition().anyMatch(d -> holds(d.getDocument(), parts, 0, type));
        }

        private static boolean holds(Object value, String[] parts, int i, byte type) {
            if (i == parts.length) {
                if (value instanceof java.util.Collection<?> items) {
                    return items.stream().anyMatch(item -> holds(item, parts, i, type));
                }
                return value instanceof de.bwaldvogel.mongo.bson.BinData b && LosslessValues.of(b).type() == type;
            }
            if (value instanceof Map<?, ?> m) {
                return holds(m.get(parts[i]), parts, i + 1, type);
            }
            if (value instanceof java.util.Collection<?> items) {
                return items.stream().anyMatch(item -> holds(item, parts, i, type));
            }
            return false;
        }

        /** Every stored document comes through here: inserts and upserts. */
        @Override
        public void addDocument(Document document) {
            if (document.containsKey("_id")) {
                checkId(document.get("_id"));
            }
            super.addDocument(document);
        }
    }
}
