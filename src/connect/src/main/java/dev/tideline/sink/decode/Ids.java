package dev.tideline.sink.decode;

import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/** An {@code _id} as operators read it in messages: relaxed Extended JSON, e.g. {@code 42} or {@code {"$oid": "..."}}. */
public final class Ids {
    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();
    private static final int MAX_CHARS = 200;

    private Ids() {
    }

    public static String show(BsonValue id) {
        String json = new BsonDocument("_id", id).toJson(RELAXED);
        String inner = json.substring(json.indexOf(':') + 1, json.length() - 1).trim();
        return inner.length() > MAX_CHARS ? inner.substring(0, MAX_CHARS) + "..." : inner;
    }
}
