package dev.tideline.sink.check;

import java.util.Optional;
import org.bson.BsonDocument;

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
        for (String name : doc.keySet()) {
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
}
