package dev.tideline.sink.decode;

import dev.tideline.event.EnvelopeCodec;
import dev.tideline.record.EnvelopeStruct;
import dev.tideline.event.MalformedRecordException;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The document {@code _id} of a record key, whichever producer wrote it: Tideline's keys in every form
 * ({@code {"_id": ...}} as map, BSON bytes, text, or the {@code dev.tideline.DocumentKey} Struct), a
 * Struct with an {@code _id} field, a bare value, or Debezium's MongoDB key ({@code {"id": "<_id as
 * Extended JSON>"}}, as map or Struct).
 */
public final class KeyReader {
    private static final String DEBEZIUM_ID = "id";

    private KeyReader() {
    }

    public static BsonValue id(Object key) {
        if (key instanceof Struct struct) {
            if (EnvelopeStruct.isKey(struct)) {
                return EnvelopeStruct.keyId(struct);
            }
            Field debeziumId = struct.schema().field(DEBEZIUM_ID);
            if (struct.schema().field("_id") == null && debeziumId != null && struct.get(debeziumId) instanceof String json) {
                return DebeziumChangeEvent.parseId(json);
            }
            BsonDocument doc = StructConverter.toDocument(struct);
            BsonValue id = doc.get("_id");
            if (id == null) {
                throw new MalformedRecordException("record key struct " + struct.schema().name() + " has no '_id' field");
            }
            return id;
        }
        if (key instanceof Map<?, ?> map && !map.containsKey("_id") && map.size() == 1
                && map.get(DEBEZIUM_ID) instanceof String json) {
            return DebeziumChangeEvent.parseId(json);
        }
        return EnvelopeCodec.readKeyId(key);
    }
}
