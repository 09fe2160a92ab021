package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import com.mongodb.client.model.changestream.FullDocumentBeforeChange;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonDbPointer;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonUndefined;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.types.ObjectId;
import org.bson.UuidRepresentation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item: binary values keep their subtype (https://bsonspec.org/spec.html,
 * https://www.mongodb.com/docs/manual/reference/bson-types/#binary-data) on every path a document takes
 * through the server: stored and found, in change events (insert, update with {@code updateLookup} and its
 * update description, replace, pre- and post-images, database streams), in query filters and in
 * findAndModify. mongo-java-server alone refused subtypes 1, 2 and 5 to 0xFF but 0x80 (the connection
 * closed), and returned 0x80 as 0. The deprecated types (undefined, DBPointer, symbol, code with scope),
 * which it refused or turned into null, are kept to the byte too.
 */
class LosslessBsonTest {
    private static final byte[] SUBTYPES = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, (byte) 0x80, (byte) 0xFF};

    private MongoFixture mongo;
    private MongoDatabase db;
    private MongoCollection<BsonDocument> c;

    @BeforeEach
    void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        db = mongo.client().getDatabase("binary");
        c = db.getCollection("docs", BsonDocument.class);
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    /** A binary value of each subtype: top level, in an embedded document and in an array. */
    private static BsonDocument everySubtype(int id) {
        BsonDocument top = new BsonDocument("_id", new BsonInt32(id));
        BsonDocument embedded = new BsonDocument();
        BsonArray array = new BsonArray();
        for (byte subtype : SUBTYPES) {
            String name = String.format("t%02x", subtype & 0xFF);
            top.append(name, value(subtype, id));
            embedded.append(name, value(subtype, id + 1));
            array.add(value(subtype, id + 2));
        }
        return top.append("embedded", embedded).append("array", array);
    }

    private static BsonBinary value(byte subtype, int seed) {
        if (subtype == BsonBinarySubType.UUID_STANDARD.getValue()) {
            return new BsonBinary(new UUID(seed, 4), UuidRepresentation.STANDARD);
        }
        if (subtype == BsonBinarySubType.UUID_LEGACY.getValue()) {
            return new BsonBinary(new UUID(seed, 3), UuidRepresentation.JAVA_LEGACY);
        }
        byte[] data = new byte[subtype == BsonBinarySubType.MD5.getValue() ? 16 : 5 + (subtype & 0x0F)];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (seed * 31 + i + subtype);
        }
        if (subtype == BsonBinarySubType.VECTOR.getValue()) {
            data[0] = 0x03; // int8 vector
            data[1] = 0x00; // no padding
        }
        return new BsonBinary(subtype, data);
    }

    private static List<Integer> subtypesOf(BsonDocument document) {
        List<Integer> out = new ArrayList<>();
        for (byte subtype : SUBTYPES) {
            out.add(document.getBinary(String.format("t%02x", subtype & 0xFF)).getType() & 0xFF);
        }
        return out;
    }

    @Test
    void aDocumentIsFoundWithTheSubtypesItWasInsertedWith() {
        BsonDocument inserted = everySubtype(1);
        c.insertOne(inserted);
        BsonDocument found = c.find(Filters.eq("_id", 1)).first();
        assertThat(found).isEqualTo(inserted); // BsonBinary equality includes the subtype
        assertThat(subtypesOf(found)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x80, 0xFF);
        assertThat(c.aggregate(List.of(new BsonDocument("$project", new BsonDocument("embedded", new BsonInt32(1))))).first())
                .isEqualTo(new BsonDocument("_id", new BsonInt32(1)).append("embedded", inserted.getDocument("embedded")));
    }

    @Test
    void aFilterOnABinaryValueMatchesItAndFindAndModifyReturnsItWithItsSubtype() {
        c.insertOne(everySubtype(1));
        c.insertOne(everySubtype(10));
        BsonBinary md5 = value(BsonBinarySubType.MD5.getValue(), 10);
        assertThat(c.find(Filters.eq("t05", md5)).into(new ArrayList<>())).extracting(d -> d.getInt32("_id").getValue())
                .containsExactly(10);
        BsonDocument updated = c.findOneAndUpdate(Filters.eq("t80", value((byte) 0x80, 1)), Updates.set("t05", md5),
                new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER));
        assertThat(updated.getInt32("_id").getValue()).isEqualTo(1);
        assertThat(updated.getBinary("t05")).isEqualTo(md5);
        assertThat(subtypesOf(updated)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x80, 0xFF);
    }

    @Test
    void changeEventsCarryTheSubtypesInsertUpdateLookupAndReplace() {
        BsonDocument inserted = everySubtype(1);
        BsonBinary user = new BsonBinary((byte) 0x81, new byte[] {1, 2, 3});
        try (MongoChangeStreamCursor<ChangeStreamDocument<BsonDocument>> stream = c.watch()
                .fullDocument(FullDocument.UPDATE_LOOKUP).cursor()) {
            c.insertOne(inserted);
            c.updateOne(Filters.eq("_id", 1), Updates.set("added", user));
            List<ChangeStreamDocument<BsonDocument>> events = take(stream, 2); // before the replace: updateLookup reads the document now
            BsonDocument replacement = everySubtype(1).append("replaced", new BsonString("yes"));
            c.replaceOne(Filters.eq("_id", 1), replacement);
            events.addAll(take(stream, 1));

            assertThat(events).extracting(ChangeStreamDocument::getOperationTypeString).containsExactly("insert", "update", "replace");
            assertThat(events.get(0).getFullDocument()).as("insert").isEqualTo(inserted);
            assertThat(events.get(1).getFullDocument()).as("updateLookup").isEqualTo(inserted.clone().append("added", user));
            assertThat(events.get(1).getUpdateDescription().getUpdatedFields()).isEqualTo(new BsonDocument("added", user));
            assertThat(events.get(2).getFullDocument()).as("replace").isEqualTo(replacement);
        }
    }

    @Test
    void preAndPostImagesAndDatabaseStreamsCarryTheSubtypes() {
        db.createCollection("images", new CreateCollectionOptions()
                .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
        MongoCollection<BsonDocument> images = db.getCollection("images", BsonDocument.class);
        BsonDocument inserted = everySubtype(1);
        images.insertOne(inserted);
        BsonBinary encrypted = value(BsonBinarySubType.ENCRYPTED.getValue(), 99);
        try (MongoChangeStreamCursor<ChangeStreamDocument<BsonDocument>> stream = db.watch(List.of(), BsonDocument.class)
                .fullDocument(FullDocument.REQUIRED).fullDocumentBeforeChange(FullDocumentBeforeChange.REQUIRED).cursor()) {
            images.updateOne(Filters.eq("_id", 1), Updates.set("t06", encrypted));
            images.deleteOne(Filters.eq("_id", 1));
            List<ChangeStreamDocument<BsonDocument>> events = take(stream, 2);
            assertThat(events).extracting(ChangeStreamDocument::getOperationTypeString).containsExactly("update", "delete");
            assertThat(events.get(0).getFullDocumentBeforeChange()).as("pre-image").isEqualTo(inserted);
            BsonDocument after = inserted.clone().append("t06", encrypted);
            assertThat(events.get(0).getFullDocument()).as("post-image").isEqualTo(after);
            assertThat(events.get(1).getFullDocumentBeforeChange()).as("the delete's pre-image").isEqualTo(after);
        }
    }

    @Test
    void deprecatedTypesAreStoredAndStreamedToTheByte() {
        BsonDocument inserted = new BsonDocument("_id", new BsonInt32(1))
                .append("undefined", new BsonUndefined())
                .append("symbol", new BsonSymbol("sym"))
                .append("dbPointer", new BsonDbPointer("db.coll", new ObjectId("5f0000000000000000000abc")))
                .append("codeWithScope", new BsonJavaScriptWithScope("function () { return x; }", new BsonDocument("x", new BsonInt32(1))))
                .append("nested", new BsonArray(List.of(new BsonSymbol("in an array"), new BsonUndefined())))
                .append("after", new BsonString("the fields after them are read in place"));
        try (MongoChangeStreamCursor<ChangeStreamDocument<BsonDocument>> stream = c.watch().cursor()) {
            c.insertOne(inserted);
            RawBsonDocument found = c.withDocumentClass(RawBsonDocument.class).find(Filters.eq("_id", 1)).first();
            assertThat(bytes(found)).isEqualTo(bytes(new RawBsonDocument(inserted, new BsonDocumentCodec())));
            assertThat(take(stream, 1).get(0).getFullDocument()).isEqualTo(inserted);
        }
    }

    private static byte[] bytes(RawBsonDocument document) {
        java.nio.ByteBuffer buffer = document.getByteBuffer().asNIO();
        byte[] out = new byte[buffer.remaining()];
        buffer.get(out);
        return out;
    }

    private static List<ChangeStreamDocument<BsonDocument>> take(MongoChangeStreamCursor<ChangeStreamDocument<BsonDocument>> cursor,
                                                                  int n) {
        List<ChangeStreamDocument<BsonDocument>> out = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 20_000;
        while (out.size() < n && System.currentTimeMillis() < deadline) {
            ChangeStreamDocument<BsonDocument> e = cursor.tryNext();
            if (e != null) {
                out.add(e);
            }
        }
        return out;
    }
}
