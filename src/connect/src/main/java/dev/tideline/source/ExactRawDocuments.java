package dev.tideline.source;

import com.mongodb.MongoClientSettings;
import org.bson.BsonBinaryReader;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonReader;
import org.bson.BsonType;
import org.bson.BsonWriter;
import org.bson.RawBsonDocument;
import org.bson.codecs.Codec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.codecs.RawBsonDocumentCodec;
import org.bson.codecs.configuration.CodecRegistries;
import org.bson.codecs.configuration.CodecRegistry;
import org.bson.io.BsonInput;
import org.bson.io.BsonInputMark;

/**
 * Decodes each document of a reply into a {@link RawBsonDocument} of its own exact bytes, read once. The
 * driver's {@link RawBsonDocumentCodec} pipes the document into a buffer that starts empty and grows, through
 * a temporary copy of the document: three to four arrays per document where one is needed, the copy's read
 * thread's largest allocation (docs/performance.md). The bytes are the same: a BSON document is its own
 * length followed by its content (https://bsonspec.org/spec.html), and this copies exactly that range.
 *
 * <p>Only where the reader is a {@link BsonBinaryReader} at a document value (the documents of a
 * {@code find}'s batch); anything else goes to the driver's codec. The reader is then moved past the value
 * with its own {@code skipValue}, so its state stays its own.
 */
final class ExactRawDocuments implements Codec<RawBsonDocument> {
    /** The default registry with this codec for {@link RawBsonDocument}. */
    static final CodecRegistry REGISTRY = CodecRegistries.fromRegistries(CodecRegistries.fromCodecs(new ExactRawDocuments()),
            MongoClientSettings.getDefaultCodecRegistry());
    private static final RawBsonDocumentCodec GENERAL = new RawBsonDocumentCodec();

    @Override
    public RawBsonDocument decode(BsonReader reader, DecoderContext context) {
        if (!(reader instanceof BsonBinaryReader binary) || binary.getCurrentBsonType() != BsonType.DOCUMENT) {
            return GENERAL.decode(reader, context);
        }
        BsonInput input = binary.getBsonInput();
        BsonInputMark start = input.getMark(Integer.MAX_VALUE);
        int size = input.readInt32();
        start.reset();
        if (size < 5) {
            return GENERAL.decode(reader, context); // the driver's error for a corrupt length
        }
        byte[] bytes = new byte[size];
        input.readBytes(bytes);
        start.reset();
        try {
            binary.skipValue(); // checks the reader's state before it reads: a reader not at a value is left as it was
        } catch (BsonInvalidOperationException notAtAValue) {
            return GENERAL.decode(reader, context);
        }
        return new RawBsonDocument(bytes);
    }

    @Override
    public void encode(BsonWriter writer, RawBsonDocument value, EncoderContext context) {
        GENERAL.encode(writer, value, context);
    }

    @Override
    public Class<RawBsonDocument> getEncoderClass() {
        return RawBsonDocument.class;
    }
}
