package dev.tideline.sink.write;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

/** The size check encodes a document once, and the write reuses that encoding. */
class DocumentSizeTest {
    @Test
    void aDocumentIsEncodedOnceAndARawOneNotAtAll() {
        BsonDocument doc = BsonDocument.parse("{_id: 1, s: 'héllo', n: {$numberLong: '5'}}");
        RawBsonDocument encoded = DocumentSize.encoded(doc);
        assertThat(encoded).isEqualTo(doc);
        assertThat(encoded.getByteBuffer().remaining()).isEqualTo(new RawBsonDocument(doc, new BsonDocumentCodec()).getByteBuffer().remaining());
        assertThat(DocumentSize.encoded(encoded)).isSameAs(encoded);
        assertThat(DocumentSize.of(doc)).isEqualTo(encoded.getByteBuffer().remaining());
    }
}
