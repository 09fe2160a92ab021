package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.memory.index.MemoryUniqueIndex;
import de.bwaldvogel.mongo.bson.Decimal128;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.MaxKey;
import de.bwaldvogel.mongo.bson.MinKey;
import de.bwaldvogel.mongo.bson.ObjectId;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link IdUniqueIndex} answers every operation as mongo-java-server's own {@code _id} index does (the same
 * positions, the same duplicate-key errors with the same messages), on {@code _id}s of every kind: equal numbers of
 * different types, strings, embedded documents in different field orders, ObjectIds, null and missing.
 */
class IdUniqueIndexTest {
    private static final IndexKey ID = new IndexKey("_id", true);
    private static final Object MISSING = new Object();

    @SuppressWarnings("unchecked")
    private static final MongoCollection<Integer> COLLECTION = (MongoCollection<Integer>) Proxy.newProxyInstance(
            IdUniqueIndexTest.class.getClassLoader(), new Class<?>[] {MongoCollection.class}, (proxy, method, args) -> {
                if (method.getName().equals("getFullName")) {
                    return "db.c";
                }
                throw new UnsupportedOperationException(method.getName());
            });

    private static List<Object> ids() {
        List<Object> ids = new ArrayList<>(List.of(1, 1L, 1.0, (short) 1, new Decimal128(new BigDecimal("1")), 2, 2.5, 0, 0L, -0.0,
                Double.NaN, Long.MAX_VALUE, Long.MAX_VALUE - 1, 9_007_199_254_740_993L, 9_007_199_254_740_992L, -7, "1", "a", "",
                "A", true, false, Instant.ofEpochMilli(5), new ObjectId("5f1d7c0e9b1e8a3c4d5e6f70"),
                new ObjectId("5f1d7c0e9b1e8a3c4d5e6f71"), MinKey.getInstance(), MaxKey.getInstance()));
        ids.add(new Document("ns", "db.c").append("id", 1));
        ids.add(new Document("ns", "db.c").append("id", 1L));
        ids.add(new Document("ns", "db.c").append("id", 1.0));
        ids.add(new Document("id", 1).append("ns", "db.c"));
        ids.add(new Document("ns", "db.c").append("id", new Document("a", 1).append("b", 2)));
        ids.add(new Document("ns", "db.c").append("id", new Document("b", 2).append("a", 1)));
        ids.add(new Document("ns", "db.c").append("id", new Document("a", 1.0).append("b", 2L)));
        ids.add(new Document("ns", "db.c").append("id", "x"));
        ids.add(new Document());
        ids.add(null);
        ids.add(MISSING);
        return ids;
    }

    private static Document withId(Object id) {
        Document document = new Document("v", 1);
        if (id != MISSING) {
            document.put("_id", id);
        }
        return document;
    }

    @Test
    void addsLooksUpRemovesAndRefusesAsMongoJavaServer() {
        Index<Integer> theirs = new MemoryUniqueIndex("_id_", List.of(ID), false);
        Index<Integer> ours = new IdUniqueIndex("_id_", ID);
        List<Object> ids = ids();
        int duplicates = 0;
        for (int i = 0; i < ids.size(); i++) {
            Document document = withId(ids.get(i));
            assertThat(outcome(() -> checkAdd(ours, document))).isEqualTo(outcome(() -> checkAdd(theirs, document)));
            int position = i;
            String added = outcome(() -> add(ours, document, position));
            assertThat(added).isEqualTo(outcome(() -> add(theirs, document, position)));
            duplicates += added.startsWith("DuplicateKeyError") ? 1 : 0;
            assertSameLookups(ours, theirs, ids);
        }
        assertThat(duplicates).as("equal numbers, null and missing collide").isGreaterThan(5);
        assertThat(ours.getCount()).isEqualTo(theirs.getCount());

        for (int i = 0; i < ids.size(); i += 2) {
            Document document = withId(ids.get(i));
            assertThat(ours.remove(document)).isEqualTo(theirs.remove(document));
            assertSameLookups(ours, theirs, ids);
        }
        assertThat(ours.getCount()).isEqualTo(theirs.getCount()).isPositive();
        for (int i = 0; i < ids.size(); i++) {
            Document document = withId(ids.get(i));
            int position = 100 + i;
            assertThat(outcome(() -> add(ours, document, position))).isEqualTo(outcome(() -> add(theirs, document, position)));
        }
        assertSameLookups(ours, theirs, ids);
    }

    @Test
    void updatesAsMongoJavaServer() {
        List<Object> ids = ids();
        for (Object from : ids) {
            for (Object to : ids) {
                Index<Integer> theirs = new MemoryUniqueIndex("_id_", List.of(ID), false);
                Index<Integer> ours = new IdUniqueIndex("_id_", ID);
                for (Index<Integer> index : List.of(theirs, ours)) {
                    index.add(withId(from), 1, COLLECTION);
                    index.add(withId("taken"), 2, COLLECTION);
                }
                Document old = withId(from);
                Document updated = withId(to);
                Document onTaken = withId("taken");
                assertThat(outcome(() -> checkUpdate(ours, old, updated))).isEqualTo(outcome(() -> checkUpdate(theirs, old, updated)));
                assertThat(outcome(() -> checkUpdate(ours, old, onTaken))).isEqualTo(outcome(() -> checkUpdate(theirs, old, onTaken)));
                assertThat(outcome(() -> updateInPlace(ours, old, updated))).isEqualTo(outcome(() -> updateInPlace(theirs, old, updated)));
                assertSameLookups(ours, theirs, ids);
            }
        }
    }

    @Test
    void refusesADuplicateWithMongoDbsCodeAndMongoJavaServersMessage() {
        Index<Integer> ours = new IdUniqueIndex("_id_", ID);
        ours.add(withId(new Document("ns", "db.c").append("id", 1)), 0, COLLECTION);
        Document duplicate = withId(new Document("ns", "db.c").append("id", 1.0));
        try {
            ours.add(duplicate, 1, COLLECTION);
            throw new AssertionError("no duplicate key error");
        } catch (de.bwaldvogel.mongo.exception.DuplicateKeyError e) {
            assertThat(e.getCode()).isEqualTo(11000);
            assertThat(e.getMessage()).isEqualTo("[Error 11000] E11000 duplicate key error collection: db.c index: _id_ dup key: { _id: { ns: \"db.c\", id: 1.0 } }");
        }
    }

    private static void assertSameLookups(Index<Integer> ours, Index<Integer> theirs, List<Object> ids) {
        for (Object id : ids) {
            Document document = withId(id);
            assertThat(ours.getPosition(document)).as("position of %s", id).isEqualTo(theirs.getPosition(document));
            assertThat(ours.getKeyValues(document)).isEqualTo(theirs.getKeyValues(document));
            if (id != MISSING) {
                Document query = new Document("_id", id);
                assertThat(ours.canHandle(query)).isEqualTo(theirs.canHandle(query));
                if (theirs.canHandle(query)) {
                    assertThat(ours.getPositions(query)).containsExactlyElementsOf(theirs.getPositions(query));
                }
            }
        }
    }

    private static String outcome(Supplier<Object> operation) {
        try {
            return "returned " + operation.get();
        } catch (RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private static Object checkAdd(Index<Integer> index, Document document) {
        index.checkAdd(document, COLLECTION);
        return null;
    }

    private static Object add(Index<Integer> index, Document document, int position) {
        index.add(document, position, COLLECTION);
        return null;
    }

    private static Object checkUpdate(Index<Integer> index, Document old, Document updated) {
        index.checkUpdate(old, updated, COLLECTION);
        return null;
    }

    private static Object updateInPlace(Index<Integer> index, Document old, Document updated) {
        index.updateInPlace(old, updated, 1, COLLECTION);
        return null;
    }
}
