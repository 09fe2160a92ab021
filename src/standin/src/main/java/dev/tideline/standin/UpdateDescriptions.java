package dev.tideline.standin;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import de.bwaldvogel.mongo.bson.Document;

/**
 * An update's {@code updateDescription} as MongoDB's change events carry it
 * (https://www.mongodb.com/docs/manual/reference/change-events/update/): the fields the update set, with their values
 * after it, the fields it removed, and no truncated arrays (the stand-in reports whole top-level fields). Pure.
 */
final class UpdateDescriptions {
    private UpdateDescriptions() {
    }

    /** {@code {updatedFields, removedFields, truncatedArrays}} of the top-level fields that differ. */
    static Document diff(Document before, Document after) {
        Document updated = new Document();
        for (String key : after.keySet()) {
            if (!before.containsKey(key) || !Objects.equals(before.get(key), after.get(key))) {
                updated.append(key, after.get(key));
            }
        }
        List<String> removed = before.keySet().stream().filter(k -> !after.containsKey(k)).toList();
        return description(updated, removed);
    }

    /** The top-level fields the update's operators name: set to their value after the update, or removed. */
    static Document describe(Document update, Document after) {
        Document updated = new Document();
        List<String> removed = new ArrayList<>();
        for (Object fields : update.values()) {
            if (fields instanceof Document d) {
                for (String path : d.keySet()) {
                    String top = path.split("\\.", 2)[0];
                    if (after.containsKey(top)) {
                        updated.append(top, after.get(top));
                    } else if (!removed.contains(top)) {
                        removed.add(top);
                    }
                }
            }
        }
        return description(updated, removed);
    }

    private static Document description(Document updated, List<String> removed) {
        return new Document("updatedFields", updated).append("removedFields", removed).append("truncatedArrays", List.of());
    }
}
