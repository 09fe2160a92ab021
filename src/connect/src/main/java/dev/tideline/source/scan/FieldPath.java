package dev.tideline.source.scan;

import org.bson.BsonDocument;
import org.bson.BsonValue;

/** Reads a possibly dotted field ({@code meta.updatedAt}) from a document, through sub-documents only. */
final class FieldPath {
    private FieldPath() {
    }

    /** The value at {@code path}, or null when a step is missing or is not a document. */
    static BsonValue get(BsonDocument doc, String path) {
        BsonValue direct = doc.get(path);
        if (direct != null || path.indexOf('.') < 0) {
            return direct;
        }
        BsonValue current = doc;
        for (String step : path.split("\\.", -1)) {
            if (current == null || !current.isDocument()) {
                return null;
            }
            current = current.asDocument().get(step);
        }
        return current;
    }
}
