package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBinaryReader;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.DecoderContext;
import org.junit.jupiter.api.Test;

/** Each document of a batch decodes into its own exact bytes, the same bytes as the driver's codec gives. */
class ExactRawDocumentsTest {
    private static final DecoderContext DECODE = DecoderContext.builder().build();

    private static byte[] bytesOf(RawBsonDocument d) {
        ByteBuffer b = d.getByteBuffer().asNIO();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    @Test
    void aFindReadsTheSameDocumentsEachInAnArrayOfItsOwnSize() {
        try (InProcessMongo mongo = new InProcessMongo()) {
            List<Document> docs = new ArrayList<>();
            for (int i = 0; i < 250; i++) {
                docs.add(new Document("_id", i).append("s", "héllo ✓ " + "x".repeat(i)).append("nested", new Document("a", List.of(i, "b")))
                        .append("empty", new Document()));
            }
            mongo.db("e").getCollection("c").insertMany(docs);
            MongoCollection<RawBsonDocument> general = mongo.db("e").getCollection("c", RawBsonDocument.class);
            MongoCollection<RawBsonDocument> exact = general.withCodecRegistry(ExactRawDocuments.REGISTRY);

            List<RawBsonDocument> expected = general.find().sort(new Document("_id", 1)).batchSize(100).into(new ArrayList<>());
            List<RawBsonDocument> got = exact.find().sort(new Document("_id", 1)).batchSize(100).into(new ArrayList<>());

            assertThat(got).hasSize(250);
            assertThat(expected).as("the driver's codec leaves room after a document (what this saves)")
                    .anyMatch(d -> d.getByteBuffer().asNIO().array().length > d.getByteBuffer().remaining());
            for (int i = 0; i < got.size(); i++) {
                assertThat(bytesOf(got.get(i))).isEqualTo(bytesOf(expected.get(i)));
                ByteBuffer nio = got.get(i).getByteBuffer().asNIO();
                assertThat(nio.array().length).as("backed by an array of the document's size").isEqualTo(nio.remaining());
            }
        }
    }

    @Test
    void documentsInsideAnArrayAndAtTheTopLevelDecodeTheSame() {
        BsonDocument one = new BsonDocument("_id", new BsonInt32(1)).append("s", new BsonString("a"));
        BsonDocument two = new BsonDocument("_id", new BsonInt32(2)).append("d", new BsonDocument("x", new BsonArray()));
        BsonDocument reply = new BsonDocument("batch", new BsonArray(List.of(one, two))).append("after", new BsonInt32(9));
        RawBsonDocument raw = new RawBsonDocument(reply, new BsonDocumentCodec());
        ExactRawDocuments codec = new ExactRawDocuments();

        try (BsonBinaryReader reader = new BsonBinaryReader(raw.getByteBuffer().asNIO())) {
            reader.readStartDocument();
            reader.readName("batch");
            reader.readStartArray();
            List<BsonDocument> decoded = new ArrayList<>();
            while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
                decoded.add(codec.decode(reader, DECODE));
            }
            reader.readEndArray();
            assertThat(reader.readInt32("after")).as("the reader continues after the array").isEqualTo(9);
            reader.readEndDocument();
            assertThat(decoded).containsExactly(one, two);
        }
        // at the top level the reader is not at a value yet: the driver's codec takes it
        try (BsonBinaryReader top = new BsonBinaryReader(new RawBsonDocument(one, new BsonDocumentCodec()).getByteBuffer().asNIO())) {
            assertThat((BsonDocument) codec.decode(top, DECODE)).isEqualTo(one);
        }
    }
}
