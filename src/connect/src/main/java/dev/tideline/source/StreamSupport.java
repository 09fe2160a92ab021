package dev.tideline.source;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoDatabase;
import dev.tideline.log.LogText;
import dev.tideline.mongo.MongoErrors;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the source serves change streams, decided once per task by opening one on a database, as
 * the task reads them (not by reading {@code hello}: some servers answer neither {@code hello} nor
 * {@code setName} like a replica set). Only MongoDB's answer for a server that cannot (40573 on a
 * standalone) says no; a server that does not answer yet is asked again later, so {@code mode=auto}
 * started during an outage still uses change streams once the server is back.
 */
final class StreamSupport {
    private static final Logger log = LoggerFactory.getLogger(StreamSupport.class);
    private Boolean available;

    /**
     * @throws RuntimeException the driver's error unless it says the server cannot serve change
     *                          streams: the capture retries or fails on it, rather than falling back
     *                          on a guess (a lost history or a blip during the probe once switched a
     *                          streaming collection to the date scan, from scratch)
     */
    synchronized boolean available(MongoDatabase probe) {
        if (available == null) {
            try (MongoChangeStreamCursor<?> cursor = probe.watch(BsonDocument.class).maxAwaitTime(10, TimeUnit.MILLISECONDS).cursor()) {
                cursor.tryNext();
                available = true;
            } catch (RuntimeException e) {
                if (!MongoErrors.isStreamUnsupported(e)) {
                    throw e;
                }
                available = false;
                log.warn("*** The source cannot serve change streams ({}: {}): mode=auto falls back to the DATE SCAN. "
                        + "Deletes are then only seen through the delete-marker collection, and every document must carry "
                        + "the scan key. Use a replica set (even a single-node one) for change streams. ***",
                        e.getClass().getSimpleName(), LogText.message(e.getMessage()));
            }
        }
        return available;
    }
}
