package dev.tideline.standin;

import de.bwaldvogel.mongo.backend.AbstractCursor;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * An open change stream: a position in the oplog and what the client has been given.
 *
 * <p>Each batch reads the oplog from where the last one stopped, up to a high-water mark taken before
 * the read (every entry at or below it is visible), as MongoDB's change streams scan the oplog. The
 * post-batch resume token follows MongoDB's rule
 * (https://github.com/mongodb/specifications/blob/master/source/change-streams/change-streams.md#updating-the-cached-resume-token):
 * the last event's token when the batch is full, else a high-water-mark token past everything examined, so
 * that the driver's {@code getResumeToken()} moves forward on a quiet stream. An {@code invalidate} ends
 * the last batch and closes the cursor.
 *
 * <p>Resuming before what a capped oplog still holds answers ChangeStreamHistoryLost (286), as MongoDB
 * does when the resume point has rolled off its oplog; so does a live cursor that a writer outran.
 */
final class ChangeStreamCursor extends AbstractCursor {
    /** One reply's documents, its post-batch resume token, and whether the cursor is done. */
    record Batch(List<Document> documents, ResumeToken postBatchResumeToken, boolean closed) {
    }

    private final ChangeStreamSpec spec;
    private final IndexedOplog oplog;
    private final ChangeEvents events;
    private final EventPipeline pipeline;
    private final ArrayDeque<EventPipeline.Output> pending = new ArrayDeque<>();
    /** Where the client is: everything up to this token has been given (or filtered out). */
    private ResumeToken position;
    /** Every oplog entry up to this timestamp has been examined. */
    private long seenThrough;
    /** A stream resumed from a fragment's token must find that fragment again (MongoDB: ChangeStreamFatalError). */
    private ResumeToken fragmentToFind;
    private boolean closed;

    ChangeStreamCursor(long id, ChangeStreamSpec spec, IndexedOplog oplog, EventPipeline pipeline, ResumeToken start) {
        super(id);
        this.spec = spec;
        this.oplog = oplog;
        this.events = new ChangeEvents(oplog);
        this.pipeline = pipeline;
        this.position = start;
        // the resume point's own entry is read again (for events after it at the same time, and to check it is there)
        this.seenThrough = start.clusterTime() - 1;
        this.fragmentToFind = start.isFragment() ? start : null;
    }

    ChangeStreamSpec spec() {
        return spec;
    }

    /** The position before any batch is read: a first batch of size 0 answers it as its post-batch resume token. */
    synchronized ResumeToken position() {
        return position;
    }

    /**
     * The next batch: at most {@code limit} documents (none: no limit) and {@code maxBytes} bytes (at least one document).
     *
     * @throws de.bwaldvogel.mongo.exception.MongoServerError history lost (286), an event over the size limit (10334),
     *         a required image missing (47), a resume token the pipeline changed (280); the cursor is then dead
     */
    synchronized Batch next(int limit, long maxBytes) {
        List<Document> out = new ArrayList<>();
        if (closed) {
            return new Batch(out, position, true);
        }
        long highWaterMark = oplog.highWaterMark();
        checkHistory();
        long bytes = drain(out, limit, maxBytes, 0);
        long examined = 0;
        boolean full = isFull(out, limit) || !pending.isEmpty() || closed;
        if (!full) {
            for (OplogEntry entry : oplog.entriesBetween(seenThrough + 1, highWaterMark)) {
                examined++;
                for (ChangeEvents.Event event : events.of(entry, spec)) {
                    if (!reachesPast(event.token())) {
                        continue; // the event resumed after (or one before it): dropped before images, stages and size
                    }
                    for (EventPipeline.Output output : pipeline.apply(events.withImages(event, spec), event.token())) {
                        if (output.token().isAfter(position)) {
                            pending.add(output);
                        }
                        if (output.token().equals(fragmentToFind)) {
                            fragmentToFind = null;
                        }
                    }
                }
                if (fragmentToFind != null && entry.ts() >= fragmentToFind.clusterTime()) {
                    throw ServerErrors.fatal("Attempting to resume a change stream from a split event fragment, but the event "
                            + "in the resumed stream is not split the same way (" + fragmentToFind + ")");
                }
                seenThrough = entry.ts();
                checkHistory();
                bytes = drain(out, limit, maxBytes, bytes);
                if (isFull(out, limit) || !pending.isEmpty() || closed) {
                    full = true;
                    break;
                }
            }
        }
        oplog.examined(examined);
        if (!full) {
            // everything up to the high-water mark was examined: the position moves past it
            seenThrough = Math.max(seenThrough, highWaterMark);
            checkHistory();
            ResumeToken past = ResumeToken.after(highWaterMark);
            if (past.isAfter(position)) {
                position = past;
            }
        }
        return new Batch(out, position, closed);
    }

    /**
     * Whether an event may give the client something: it comes after the position, or it is the event whose
     * fragments the stream resumed in the middle of. MongoDB checks the resume point right after it transforms
     * an oplog entry, before it adds images, runs the client's stages or measures the event
     * (https://www.mongodb.com/docs/manual/changeStreams/#resume-a-change-stream: the stream resumes with the
     * events after the token's), so the event a stream resumes after is never looked up, measured or returned
     * again: resuming after an event too large to send, or one missing a required image, goes on.
     */
    private boolean reachesPast(ResumeToken token) {
        return token.isAfter(position) || position.isFragment() && token.equals(position.wholeEvent());
    }

    private long drain(List<Document> out, int limit, long maxBytes, long bytes) {
        while (!pending.isEmpty() && !isFull(out, limit) && !closed) {
            EventPipeline.Output next = pending.peek();
            if (!out.isEmpty() && bytes + next.size() > maxBytes) {
                break;
            }
            pending.poll();
            out.add(next.document());
            bytes += next.size();
            position = next.token();
            if (next.token().isInvalidate()) {
                closed = true;
            }
        }
        return bytes;
    }

    private static boolean isFull(List<Document> out, int limit) {
        return limit > 0 && out.size() >= limit;
    }

    /** Entries after what was examined were removed by the cap before they were read: that history is gone. */
    synchronized void checkHistory() {
        long evicted = oplog.newestEvicted();
        if (evicted != 0 && evicted > seenThrough) {
            closed = true;
            throw ServerErrors.historyLost();
        }
    }

    @Override
    public synchronized boolean isEmpty() {
        return closed;
    }

    /** The stand-in's generic cursor interface: a batch of up to {@code numberToReturn} documents. */
    @Override
    public List<Document> takeDocuments(int numberToReturn) {
        return next(numberToReturn, Long.MAX_VALUE).documents();
    }
}
