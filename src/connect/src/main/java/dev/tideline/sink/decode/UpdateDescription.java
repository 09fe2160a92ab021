package dev.tideline.sink.decode;

import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.ValueShape;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonValue;
import org.bson.json.JsonParseException;

/**
 * What an update changed, as MongoDB describes it in a change event's {@code updateDescription}
 * (https://www.mongodb.com/docs/manual/reference/change-events/update/): {@code updatedFields} maps
 * each changed path (dotted, as MongoDB gives it: {@code "a.b"}, {@code "tags.2"}) to its NEW value,
 * {@code removedFields} lists removed paths, {@code truncatedArrays} lists arrays cut to a new size.
 * Debezium's {@code change_streams} capture mode carries the same description with
 * {@code updatedFields} as Extended JSON text and truncations as {@code {field, size}}.
 */
public record UpdateDescription(BsonDocument updatedFields, List<String> removedFields, List<Truncation> truncatedArrays) {
    /** An array at {@code field} cut to its first {@code newSize} elements. */
    public record Truncation(String field, int newSize) {
        public Truncation {
            Objects.requireNonNull(field, "field");
            if (newSize < 0) {
                throw new IllegalArgumentException("newSize must not be negative, got " + newSize);
            }
        }
    }

    public UpdateDescription {
        Objects.requireNonNull(updatedFields, "updatedFields");
        removedFields = List.copyOf(removedFields);
        truncatedArrays = List.copyOf(truncatedArrays);
    }

    /** MongoDB's shape: {@code {updatedFields: {...}, removedFields: [...], truncatedArrays: [{field, newSize}]}}. */
    static UpdateDescription fromChangeEvent(BsonValue description) {
        return read(description, "newSize", "updateDescription");
    }

    /** Debezium's shape: {@code updatedFields} as Extended JSON text, truncations as {@code {field, size}}. */
    static UpdateDescription fromDebezium(BsonValue description) {
        return read(description, "size", "Debezium updateDescription");
    }

    private static UpdateDescription read(BsonValue description, String sizeField, String where) {
        if (description == null || !description.isDocument()) {
            throw new MalformedRecordException(where + " must be a document");
        }
        BsonDocument d = description.asDocument();
        return new UpdateDescription(updatedFields(d.get("updatedFields"), where), strings(d.get("removedFields"), where),
                truncations(d.get("truncatedArrays"), sizeField, where));
    }

    private static BsonDocument updatedFields(BsonValue v, String where) {
        if (v == null || v.isNull()) {
            return new BsonDocument();
        }
        if (v.isDocument()) {
            return v.asDocument();
        }
        if (v.isString()) {
            ValueShape.requireJson(v.asString().getValue(), where + ".updatedFields");
            try {
                return BsonDocument.parse(v.asString().getValue());
            } catch (JsonParseException | BsonInvalidOperationException e) {
                throw new MalformedRecordException(where + ".updatedFields is not an Extended JSON document: " + e.getMessage(), e);
            }
        }
        throw new MalformedRecordException(where + ".updatedFields must be a document, got " + v.getBsonType());
    }

    private static List<String> strings(BsonValue v, String where) {
        List<String> out = new ArrayList<>();
        for (BsonValue item : array(v, "removedFields", where)) {
            if (!item.isString()) {
                throw new MalformedRecordException(where + ".removedFields must hold field paths, got " + item.getBsonType());
            }
            out.add(item.asString().getValue());
        }
        return out;
    }

    private static List<Truncation> truncations(BsonValue v, String sizeField, String where) {
        List<Truncation> out = new ArrayList<>();
        for (BsonValue item : array(v, "truncatedArrays", where)) {
            BsonValue field = item.isDocument() ? item.asDocument().get("field") : null;
            BsonValue size = item.isDocument() ? item.asDocument().get(sizeField) : null;
            if (field == null || !field.isString() || size == null || !size.isNumber() || size.asNumber().intValue() < 0) {
                throw new MalformedRecordException(where + ".truncatedArrays entries must be {field: <path>, "
                        + sizeField + ": <size>}, got " + item);
            }
            out.add(new Truncation(field.asString().getValue(), size.asNumber().intValue()));
        }
        return out;
    }

    private static BsonArray array(BsonValue v, String name, String where) {
        if (v == null || v.isNull()) {
            return new BsonArray();
        }
        if (!v.isArray()) {
            throw new MalformedRecordException(where + "." + name + " must be an array, got " + v.getBsonType());
        }
        return v.asArray();
    }
}
