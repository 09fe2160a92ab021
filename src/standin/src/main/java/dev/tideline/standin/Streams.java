package dev.tideline.standin;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/** Reading change streams in the stand-in's tests. */
final class Streams {
    private Streams() {
    }

    /** Up to {@code n} events, waiting at most 20 s for them. */
    static List<ChangeStreamDocument<Document>> take(MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor, int n) {
        List<ChangeStreamDocument<Document>> out = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 20_000;
        while (out.size() < n && System.currentTimeMillis() < deadline) {
            ChangeStreamDocument<Document> e = cursor.tryNext();
            if (e != null) {
                out.add(e);
            }
        }
        return out;
    }

    static List<String> types(List<ChangeStreamDocument<Document>> events) {
        return events.stream().map(ChangeStreamDocument::getOperationTypeString).toList();
    }

    /** {@code db.coll} of each event ({@code db} alone for dropDatabase, "" for invalidate). */
    static List<String> namespaces(List<ChangeStreamDocument<Document>> events) {
        return events.stream().map(e -> e.getNamespaceDocument() == null ? ""
                : e.getNamespaceDocument().getString("db").getValue()
                + (e.getNamespaceDocument().containsKey("coll") ? "." + e.getNamespaceDocument().getString("coll").getValue() : ""))
                .toList();
    }
}
