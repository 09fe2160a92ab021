package dev.tideline.sink.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bson.BsonBinaryReader;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.RawBsonDocument;

/**
 * What a document must be for the sink to write it as a replacement. Pure.
 *
 * <p>A replacement cannot have a top-level field whose name starts with {@code $}
 * (https://www.mongodb.com/docs/manual/core/dot-dollar-considerations/: "$-prefixed fields are not
 * permitted as top level field names" in document-replacing updates); the driver refuses to encode one,
 * which would fail the whole bulk write and stop the task. A field name with a NUL character cannot be
 * encoded in BSON at all. Either is refused for that one record, with the reason.
 */
public final class DocumentRules {
    private DocumentRules() {
    }

    /** @return why this document cannot be written as a replacement (phrased after "the document"), or empty */
    public static Optional<String> replacementProblem(BsonDocument doc) {
        for (String name : topLevelNames(doc)) {
            if (name.startsWith("$")) {
                return Optional.of("has the top-level field '" + name + "': MongoDB does not allow $-prefixed top-level "
                        + "fields in a replacement");
            }
            if (name.indexOf('\0') >= 0) {
                return Optional.of("has a top-level field name with a NUL character, which BSON cannot encode");
            }
        }
        return Optional.empty();
    }

    /**
     * The field names, in order. Of a raw document, read from its bytes without its values: its keySet would
     * decode the whole document, and a sink's documents are raw views of the record's bytes.
     */
    private static Iterable<String> topLevelNames(BsonDocument doc) {
        if (!(doc instanceof RawBsonDocument raw)) {
            return doc.keySet();
        }
        List<String> names = new ArrayList<>();
        try (BsonBinaryReader reader = new BsonBinaryReader(raw.getByteBuffer().asNIO())) {
            reader.readStartDocument();
            while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
                names.add(reader.readName());
                reader.skipValue();
            }
        }
        return names;
    }
}
