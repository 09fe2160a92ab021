package dev.tideline.standin;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.memory.MemoryCollection;
import de.bwaldvogel.mongo.backend.memory.MemoryDatabase;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.DollarPrefixedFieldNameException;
import de.bwaldvogel.mongo.exception.InvalidIdFieldError;
import de.bwaldvogel.mongo.exception.MongoServerError;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * mongo-java-server's in-memory database whose collections refuse the {@code _id}s MongoDB refuses
 * (https://www.mongodb.com/docs/manual/core/document/#field-names: "its value must be unique in the
 * collection, is immutable, and may be of any type other than an array or regex. If the _id contains
 * subfields, the subfield names cannot begin with a ($) symbol."). The stand-in refused arrays only.
 * Its collections answer an equality on {@code _id} from the {@code _id} index ({@link IdLookup}) and count the
 * documents each query examines.
 */
public final class StandInDatabase extends MemoryDatabase {

    private static final String ID = "_id";

    /** Index keys walked by queries its collections answered from their ordered {@code _id} index ({@link OrderedIdIndex}). */
    private final LongAdder keysExamined;
    private final LongAdder documentsExamined;

    /**
     * @param keysExamined      where index keys walked are counted (the server's total, MongoDB's {@code keysExamined})
     * @param documentsExamined counts each document a query, update or delete examines (MongoDB's {@code docsExamined})
     */
    public StandInDatabase(String databaseName, CursorRegistry cursorRegistry, LongAdder keysExamined, LongAdder documentsExamined) {
        super(databaseName, cursorRegistry);
        this.keysExamined = keysExamined;
        this.documentsExamined = documentsExamined;
    }

    @Override
    protected MemoryCollection openOrCreateCollection(String collectionName, CollectionOptions options) {
        return new IdCheckingCollection(this, collectionName, options, cursorRegistry);
    }

    /** The unique index on {@code _id} alone reads its key directly ({@link IdUniqueIndex}); others are mongo-java-server's. */
    @Override
    protected Index<Integer> openOrCreateUniqueIndex(String collectionName, String indexName, List<IndexKey> keys, boolean sparse) {
        if (!sparse && keys.size() == 1 && ID.equals(keys.get(0).getKey())) {
            return new IdUniqueIndex(indexName, keys.get(0));
        }
        return super.openOrCreateUniqueIndex(collectionName, indexName, keys, sparse);
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

    final class IdCheckingCollection extends MemoryCollection {
        private final OrderedIdIndex ids;

        IdCheckingCollection(MongoDatabase database, String collectionName, CollectionOptions options, CursorRegistry cursorRegistry) {
            super(database, collectionName, options, cursorRegistry);
            this.ids = new OrderedIdIndex(keysExamined);
        }

        /**
         * mongo-java-server keeps a collection's data size by encoding every inserted document, and both images of
         * every updated one, to BSON just to count its bytes: 734 of the 4,072 samples of this stand-in's write commands
         * in a JFR profile of the sink benchmark, where MongoDB adds the size of the bytes it already holds. Only {@code collStats} and
         * {@code validate} read that size ({@code size}, {@code avgObjSize}), so it is computed when they ask, as the sum
         * of the documents' BSON sizes ({@link BsonSize}: the same bytes, counted without encoding them).
         */
        @Override
        protected boolean tracksDataSize() {
            return false;
        }

        @Override
        protected synchronized int getDataSize() {
            long size = streamAllDocumentsWithPosition().mapToLong(d -> BsonSize.of(d.getDocument())).sum();
            return (int) Math.min(Integer.MAX_VALUE, size);
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
         * A filter with an equality on {@code _id} ({@link IdLookup}) is answered from the {@code _id} index, as
         * MongoDB answers it, in every form: mongo-java-server's index takes only a filter that is exactly
         * {@code {_id: v}} or {@code {_id: {$in: [...]}}}, and scanned the whole collection for any other (a sink's
         * {@code $eq}, a shard key beside {@code _id}, {@code $and}). The documents looked up are matched against
         * the whole filter, as the scan matched them.
         */
        @Override
        protected QueryResult queryDocuments(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                                             Document fieldSelector) {
            // an _id range sorted by _id walks the ordered _id index from the range's start, as MongoDB's IXSCAN does
            java.util.stream.Stream<Document> walked = ids.walk(query, orderBy, this::getDocument, d -> documentMatchesQuery(d, query));
            if (walked != null) {
                return matchDocumentsFromStream(query, walked, numberToSkip, limit, batchSize, null, fieldSelector);
            }
            Document filter = DeprecatedTypeAliases.dropped(query, this::holds);
            List<Object> idValues = IdLookup.candidates(filter);
            Index<Integer> idIndex = idValues == null ? null : idIndex();
            if (idIndex == null) {
                return super.queryDocuments(filter, orderBy, numberToSkip, limit, batchSize, fieldSelector);
            }
            return matchDocuments(filter, positionsOf(idValues, idIndex), orderBy, numberToSkip, limit, batchSize, fieldSelector);
        }

        /**
         * The stored document with this {@code _id}, or null: the stand-in's own read (its oplog's images), which
         * MongoDB makes without a query, so it is not counted as examined.
         */
        synchronized Document documentWithId(Object id) {
            Index<Integer> idIndex = idIndex();
            if (idIndex == null) {
                Iterator<Document> found = handleQuery(new Document(ID, id), 0, 1).iterator();
                return found.hasNext() ? found.next() : null;
            }
            Set<Integer> positions = positionsOf(List.of(id), idIndex);
            return positions.isEmpty() ? null : getDocument(positions.iterator().next());
        }

        /**
         * Whether this very document is stored (not one refused as a duplicate): from the ordered {@code _id} index,
         * one lookup of a key already extracted, where mongo-java-server's index extracts the key from the document
         * again. MongoDB's oplog needs no such check (it logs what it wrote); it stands in for that knowledge. When
         * the ordered index does not hand back this document, {@link #documentWithId} decides, as it always did.
         */
        synchronized boolean stores(Document document) {
            Integer position = ids.position(document.get(ID));
            if (position != null && getDocument(position) == document) {
                return true;
            }
            return documentWithId(document.get(ID)) == document;
        }

        private static Set<Integer> positionsOf(List<Object> ids, Index<Integer> idIndex) {
            Set<Integer> positions = new LinkedHashSet<>();
            for (Object id : ids) {
                Integer position = idIndex.getPosition(new Document(ID, id));
                if (position != null) {
                    positions.add(position);
                }
            }
            return positions;
        }

        private Index<Integer> idIndex() {
            for (Index<Integer> index : getIndexes()) {
                if (index.isUnique() && index.getKeys().size() == 1 && ID.equals(index.getKeys().get(0).getKey())) {
                    return index;
                }
            }
            return null; // a collection created without one (autoIndexId false, some system collections)
        }

        /** An index lookup examines the documents at the positions it found. */
        @Override
        protected QueryResult matchDocuments(Document query, Iterable<Integer> positions, Document orderBy, int numberToSkip,
                                             int limit, int batchSize, Document fieldSelector) {
            List<Integer> found = new ArrayList<>();
            positions.forEach(found::add);
            documentsExamined.add(found.size());
            return super.matchDocuments(query, found, orderBy, numberToSkip, limit, batchSize, fieldSelector);
        }

        /** A collection scan examines every document. */
        @Override
        protected QueryResult matchDocuments(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                                             Document fieldSelector) {
            documentsExamined.add(count());
            return super.matchDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
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
