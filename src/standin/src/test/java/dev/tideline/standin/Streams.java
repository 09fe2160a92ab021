package dev.tideline.standin;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/** Reading change streams in the stand-in's tests. */
final class Streams {
    private Streams() {
    }

    /** Up to {@code n} events, waiting at most 20 s for them. */
    static List<ChangeStreamDocument<Document>> take(MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor, int n) {
        List<ChangeStreamDocument<Document>> out = new ArrayList<>();
        try {
            Awaitility.await(n + " change events").atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(1)).pollInSameThread().until(() -> {
                ChangeStreamDocument<Document> e = cursor.tryNext();
                if (e != null) {
                    out.add(e);
                }
                return out.size() >= n;
            });
        } catch (ConditionTimeoutException e) {
            // fewer than n: the caller's assertion on what came says what is missing
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
