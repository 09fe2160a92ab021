package dev.tideline.source.stream;

import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.changestream.FullDocument;
import com.mongodb.client.model.changestream.FullDocumentBeforeChange;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.stream.StreamPipeline.Opening;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;

/**
 * Opens a stream's change-stream cursors (a database's, or the deployment's: {@link StreamScope}): events as raw bytes ({@link RawChangeEvent} reads them),
 * the looked-up document on updates, the pre-image where asked, and {@code startAfter} a token, never
 * {@code resumeAfter}: it also goes on after an {@code invalidate} (where {@code resumeAfter} answers 260).
 */
final class ChangeStreamCursors {
    private static final long PROBE_AWAIT_MS = 10;

    /** {@code db.watch(pipeline)} or {@code client.watch(pipeline)}. */
    private final Function<List<BsonDocument>, ChangeStreamIterable<RawBsonDocument>> watch;

    ChangeStreamCursors(Function<List<BsonDocument>, ChangeStreamIterable<RawBsonDocument>> watch) {
        this.watch = watch;
    }

    MongoChangeStreamCursor<RawBsonDocument> open(Opening opening, int batchSize, int maxAwaitMs, boolean preImages) {
        ChangeStreamIterable<RawBsonDocument> it = watch.apply(opening.pipeline())
                .fullDocument(FullDocument.UPDATE_LOOKUP)
                .batchSize(batchSize)
                .maxAwaitTime(maxAwaitMs, TimeUnit.MILLISECONDS);
        if (preImages) {
            it = it.fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE);
        }
        return changeStream(at(it, opening.start()));
    }

    /**
     * Whether a stream opens at {@code probe.start()}: its history is still in the oplog. Asked as the stream
     * asks ({@code probe}'s pipeline, the same options), so the server answers the probe as it answers the
     * stream: without the split stage, for one, MongoDB refuses to resume at a split event's fragment (280).
     * A probe that meets an event too large to send has reached the history it asked for.
     */
    boolean opensAt(Opening probe, boolean preImages) {
        try (MongoChangeStreamCursor<RawBsonDocument> cursor = open(probe, 1, (int) PROBE_AWAIT_MS, preImages)) {
            cursor.tryNext();
            return true;
        } catch (RuntimeException e) {
            if (MongoErrors.classify(e) == ErrorClass.HISTORY_LOST) {
                return false;
            }
            if (MongoErrors.isEventTooLarge(e)) {
                return true;
            }
            throw e;
        }
    }

    private static MongoCursor<RawBsonDocument> at(ChangeStreamIterable<RawBsonDocument> it, StreamPosition start) {
        ChangeStreamIterable<RawBsonDocument> positioned = start.isToken() ? it.startAfter(start.token())
                : it.startAtOperationTime(start.clusterTime());
        return positioned.withDocumentClass(RawBsonDocument.class).cursor();
    }

    private static MongoChangeStreamCursor<RawBsonDocument> changeStream(MongoCursor<RawBsonDocument> raw) {
        if (raw instanceof MongoChangeStreamCursor<RawBsonDocument> changeStream) {
            return changeStream;
        }
        raw.close();
        throw new IllegalStateException("the MongoDB driver on the plugin's class path returned a " + raw.getClass().getName()
                + " for a change stream instead of a MongoChangeStreamCursor: install the driver version the plugin ships with");
    }
}
