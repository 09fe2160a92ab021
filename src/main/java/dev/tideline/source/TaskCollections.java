package dev.tideline.source;

import dev.tideline.event.Namespace;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/** The collections a task owns, passed from the connector in the task config (JSON: names may hold commas). */
final class TaskCollections {
    static final String KEY = "tideline.task.collections";

    private TaskCollections() {
    }

    static String encode(List<Namespace> namespaces) {
        BsonArray names = new BsonArray();
        namespaces.forEach(ns -> names.add(new BsonString(ns.fullName())));
        return new BsonDocument("c", names).toJson();
    }

    static List<Namespace> decode(String json) {
        if (json == null || json.isBlank()) {
            throw new IllegalArgumentException("task config has no " + KEY + ": tasks are configured by the connector");
        }
        List<Namespace> out = new ArrayList<>();
        for (BsonValue v : BsonDocument.parse(json).getArray("c")) {
            out.add(Namespace.parse(v.asString().getValue()));
        }
        return out;
    }
}
