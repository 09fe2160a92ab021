package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.source.config.SelectionSettings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * Lists the source's collections that the selection includes, sorted: only real collections.
 * Views hold no data of their own (their source collection's changes are captured there) and cannot be
 * watched; time-series collections have no change streams either; both are listed by
 * {@code listCollections} with their {@code type}, which the server filters on
 * (https://www.mongodb.com/docs/manual/reference/command/listCollections/). {@code system.*} and
 * Tideline's own collections are excluded by the selection.
 */
final class CollectionDiscovery {
    static final BsonDocument REAL_COLLECTIONS = new BsonDocument("type", new BsonString("collection"));

    private CollectionDiscovery() {
    }

    static List<Namespace> list(MongoClient client, SelectionSettings selection) {
        List<Namespace> found = new ArrayList<>();
        for (String db : client.listDatabaseNames()) {
            if (!selection.includesDatabase(db)) {
                continue;
            }
            for (BsonDocument info : client.getDatabase(db).listCollections(BsonDocument.class).filter(REAL_COLLECTIONS)) {
                Namespace ns = new Namespace(db, info.getString("name").getValue());
                if (selection.includes(ns)) {
                    found.add(ns);
                }
            }
        }
        found.sort(Comparator.comparing(Namespace::fullName));
        return found;
    }
}
