package dev.tideline.bson;

import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The value at a dotted path ({@code meta.updatedAt}) of a document, read as MongoDB reads dot notation in a query
 * or a sort (https://www.mongodb.com/docs/manual/core/document/#dot-notation): each part names a field of the
 * embedded document reached so far. A part that meets anything but a document (an array included: no element is
 * picked) or a missing field finds nothing; a field whose name itself contains a dot is never matched whole. Every
 * part counts, empty ones too ({@code "a."} looks for a field named "" in {@code a}).
 */
public final class DottedPath {
    private DottedPath() {
    }

    /** @return the value there (a {@code BsonNull} when the field holds null), or null when nothing is there */
    public static BsonValue get(BsonDocument doc, String path) {
        BsonValue current = doc;
        for (String part : path.split("\\.", -1)) {
            if (current == null || !current.isDocument()) {
                return null;
            }
            current = current.asDocument().get(part);
        }
        return current;
    }
}
