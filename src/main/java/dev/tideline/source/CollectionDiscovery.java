package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.source.config.SelectionSettings;
import java.util.ArrayList;
import java.util.List;

/** Lists the source's collections that the selection includes, sorted. */
final class CollectionDiscovery {
    private CollectionDiscovery() {
    }

    static List<Namespace> list(MongoClient client, SelectionSettings selection) {
        List<Namespace> found = new ArrayList<>();
        for (String db : client.listDatabaseNames()) {
            if (!selection.includesDatabase(db)) {
                continue;
            }
            for (String coll : client.getDatabase(db).listCollectionNames()) {
                Namespace ns = new Namespace(db, coll);
                if (selection.includes(ns)) {
                    found.add(ns);
                }
            }
        }
        found.sort(java.util.Comparator.comparing(Namespace::fullName));
        return found;
    }
}
