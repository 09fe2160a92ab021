package dev.tideline.health;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.ReplaceOptions;
import dev.tideline.log.LogText;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one status document (a source task's state, a peer link's status) in a MongoDB collection:
 * each write replaces it by {@code _id}, upserting. Best effort: a status document is a report, not
 * data, so a failed write is logged (once per kind of failure in a row, and once when writes work
 * again) and never reaches the capture or the replication.
 */
public final class StatusDocumentWriter {
    private static final Logger log = LoggerFactory.getLogger(StatusDocumentWriter.class);

    private final MongoCollection<BsonDocument> collection;
    /** Who writes, for the log: "the state document of task X (health.state.database)". */
    private final String what;
    private String lastFailure;

    public StatusDocumentWriter(MongoCollection<BsonDocument> collection, String what) {
        this.collection = collection;
        this.what = what;
    }

    /** @return whether it was written */
    public boolean write(BsonDocument doc) {
        try {
            collection.replaceOne(Filters.eq("_id", doc.get("_id")), doc, new ReplaceOptions().upsert(true));
            if (lastFailure != null) {
                log.info("Wrote {} again in {}", LogText.message(what), collection.getNamespace());
                lastFailure = null;
            }
            return true;
        } catch (RuntimeException e) { // a server error, or a client closed under a stopping task: reported, never thrown
            String kind = e.getClass().getSimpleName() + (e instanceof MongoException m ? "/" + m.getCode() : "");
            if (!kind.equals(lastFailure)) {
                log.warn("Could not write {} in {}: {}. Retrying at the next report; nothing else is affected.", LogText.message(what),
                        collection.getNamespace(), LogText.message(e.getMessage()));
                lastFailure = kind;
            }
            return false;
        }
    }
}
