package dev.tideline.source.stream;

import dev.tideline.event.Namespace;
import dev.tideline.log.LogText;
import dev.tideline.retry.Backoff;
import dev.tideline.mongo.ErrorClass;
import dev.tideline.mongo.MongoErrors;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionHandle;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.config.CaptureSettings.LargeEventPolicy;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a database's change stream ({@link DatabaseStream}) does after a failure, on the stream's
 * thread: which remedy applies is a plain function of the failure and the stream's state
 * ({@link #decide}); this class then performs it. The stream has already closed its cursor; it reopens
 * on its next round, unless the remedy ends it.
 *
 * <p>Failures that belong to one collection stay with it: lost history is found per position
 * ({@link HistoryWindow}, probed with the stream's own pipeline) and handed back for that collection's
 * policy; a ChangeStreamFatalError whose history is still there reopens with back-off and, repeated
 * without progress, parks the collections at the stream's start; an event too large to send on a
 * server without {@code $changeStreamSplitLargeEvent}, or one the stage cannot split (7182500), is
 * found, read without its documents and skipped or its collection parked ({@link LargeEventPolicy});
 * a collection whose records cannot be built is parked. Transient errors reopen with back-off; a
 * server without the split stage or without pre-images is read without them; what concerns the whole
 * stream (refused credentials, an unknown error) fails the task with the server's message.
 *
 * <p>It also holds the reading state those remedies change: whether the split stage and pre-images
 * are asked for, and whether the stream reads one event at a time to find one too large to send.
 */
final class StreamRecovery {
    /** The stream's own logger: its warnings and errors read (and are configured) as they always did. */
    private static final Logger log = LoggerFactory.getLogger(DatabaseStream.class);

    /** What follows a failure. */
    enum Remedy {
        /** A transient failure: reopen after a back-off. */
        RETRY,
        /** Some position's history is gone: find whose, hand those to their lost-history policy. */
        FIND_LOST_HISTORY,
        /** An event over 16 MB that the server cannot split (no split stage, or 7182500): find it, skip it or park its collection. */
        READ_PAST_TOO_LARGE_EVENT,
        /** The server has no {@code $changeStreamSplitLargeEvent}: reopen without it. */
        WITHOUT_SPLIT_STAGE,
        /** The server does not know {@code fullDocumentBeforeChange}: reopen without pre-images. */
        WITHOUT_PRE_IMAGES,
        /** An event's fragments could not be put back together: reopen before that event. */
        REOPEN_BEFORE_FRAGMENTS,
        /** One collection's records cannot be built: stop reading it, the others go on. */
        PARK_COLLECTION,
        /** A failure of the whole stream that waiting cannot cure: the task fails. */
        FAIL
    }

    /** How recovery waits before a stream reopens (a test counts what it would wait instead of waiting). */
    @FunctionalInterface
    interface Sleeper {
        void sleep(long ms) throws InterruptedException;
    }

    /**
     * How many ChangeStreamFatalErrors (280) in a row, with every position's history still there and the
     * stream never past where it stood, before the collections it cannot get past are parked.
     */
    static final int MAX_UNEXPLAINED_FATAL = 5;

    /** What recovery may do to the stream it recovers; on the stream's thread. */
    interface Stream {
        /** Opens the cursor where the stream stands; {@code trimmed}: one event at a time, without its documents. */
        void open(boolean trimmed);

        /** The next event of the open cursor, or null when there is none yet. */
        RawBsonDocument tryNext();

        void close();

        /** Every event up to {@code at} is now routed. */
        void readTo(StreamPosition at);

        /** Collections left the stream (for metrics). */
        void membersChanged();

        boolean stopped();
    }

    /** What the stream watches; {@code db} is how logs name it. */
    private final StreamScope scope;
    private final String db;
    private final DatabaseStream.Settings settings;
    private final StreamMembers members;
    private final StreamOutput out;
    private final ChangeStreamCursors cursors;
    private final FragmentAssembler assembler;
    private final Stream stream;
    private final Sleeper sleeper;
    private final Backoff backoff = new Backoff(1_000, 30_000);
    /** Back-off between ChangeStreamFatalErrors whose history is there: reset only once the stream gets past them. */
    private final Backoff fatalBackoff = new Backoff(1_000, 30_000);
    /** Where the stream stood at the first of the ChangeStreamFatalErrors in a row whose history is there, or null. */
    private StreamPosition fatalAt;
    private int fatalInARow;
    private boolean splitSupported = true;
    private boolean preImages;
    /** Reading one event per batch to find the one too large to send (see {@link #readPastTooLargeEvent}). */
    private boolean singleEvent;
    private int singleEventReads;

    StreamRecovery(StreamScope scope, DatabaseStream.Settings settings, StreamMembers members, StreamOutput out,
                   ChangeStreamCursors cursors, FragmentAssembler assembler, Stream stream, Sleeper sleeper) {
        this.scope = scope;
        this.db = scope.label();
        this.sleeper = sleeper;
        this.settings = settings;
        this.members = members;
        this.out = out;
        this.cursors = cursors;
        this.assembler = assembler;
        this.stream = stream;
        this.preImages = settings.preImages();
    }

    /** Whether the stream asks for pre-images. */
    boolean preImages() {
        return preImages;
    }

    /** How many events the stream reads per batch: one while it looks for an event too large to send. */
    int batchSize(boolean trimmed) {
        return singleEvent || trimmed ? 1 : settings.batchSize();
    }

    /**
     * Where the stream opens and what it asks for: the same pipeline for the stream and for the probes of
     * its history ({@link #findLostHistory}), so a probe answers as the stream would.
     */
    StreamPipeline.Opening plan(boolean trimmed) {
        return StreamPipeline.plan(scope, members.list(), splitSupported, trimmed, settings.repairSignals());
    }

    /**
     * A batch was handed over and the stream stands at {@code read}: the back-off starts again, a search
     * for a too-large event may end, and ChangeStreamFatalErrors in a row end once the stream got past them.
     */
    void handedOver(StreamPosition read) {
        if (singleEvent && ++singleEventReads > settings.batchSize()) {
            // a whole batch read one by one without meeting it again: whatever it was is gone
            singleEvent = false;
            stream.close();
        }
        backoff.reset();
        if (fatalAt != null && read != null && read.compareTo(fatalAt) > 0) {
            fatalAt = null;
            fatalInARow = 0;
            fatalBackoff.reset();
        }
    }

    /**
     * Which remedy applies to a failure: pure, given the stream's state.
     *
     * @param splitSupported whether the stream asks for {@code $changeStreamSplitLargeEvent}
     * @param preImages      whether the stream asks for pre-images
     * @param assembling     whether an event's fragments were being put back together
     */
    static Remedy decide(RuntimeException e, boolean splitSupported, boolean preImages, boolean assembling) {
        if (e instanceof StreamOutput.CollectionFailure f) {
            return switch (MongoErrors.classify(subject(f))) {
                case RETRIABLE -> Remedy.RETRY;
                case AUTH -> Remedy.FAIL;
                default -> Remedy.PARK_COLLECTION;
            };
        }
        if (MongoErrors.isEventTooLarge(e)) {
            return Remedy.READ_PAST_TOO_LARGE_EVENT;
        }
        if (splitSupported && MongoErrors.isUnknownPipelineStage(e)) {
            return Remedy.WITHOUT_SPLIT_STAGE;
        }
        if (preImages && MongoErrors.isUnknownField(e)) {
            return Remedy.WITHOUT_PRE_IMAGES;
        }
        return switch (MongoErrors.classify(e)) {
            case RETRIABLE -> Remedy.RETRY;
            case HISTORY_LOST -> Remedy.FIND_LOST_HISTORY;
            default -> e instanceof IllegalStateException && assembling ? Remedy.REOPEN_BEFORE_FRAGMENTS : Remedy.FAIL;
        };
    }

    /** The failure a remedy is about: a collection's failure is about its cause. */
    static RuntimeException subject(RuntimeException e) {
        if (e instanceof StreamOutput.CollectionFailure f) {
            return f.getCause() instanceof RuntimeException r ? r : f;
        }
        return e;
    }

    /**
     * Recovers from a failure of the stream (its cursor already closed). A failure while recovering is
     * retried when transient, else fails the task.
     *
     * @return false when the stream must end (the task is failed)
     */
    boolean recover(RuntimeException e) throws InterruptedException {
        try {
            return apply(decide(e, splitSupported, preImages, assembler.inProgress()), e);
        } catch (RuntimeException again) {
            if (stream.stopped()) {
                return false;
            }
            if (MongoErrors.classify(again) == ErrorClass.RETRIABLE) {
                retry(again); // e.g. the server went away while the stream was finding a lost history
                return true;
            }
            again.addSuppressed(e);
            out.failed(again);
            return false;
        }
    }

    private boolean apply(Remedy remedy, RuntimeException e) throws InterruptedException {
        RuntimeException subject = subject(e);
        switch (remedy) {
            case RETRY -> retry(subject);
            case FIND_LOST_HISTORY -> findLostHistory(subject);
            case READ_PAST_TOO_LARGE_EVENT -> readPastTooLargeEvent(e);
            case WITHOUT_SPLIT_STAGE -> {
                splitSupported = false;
                log.warn("Change stream of {}: the server has no $changeStreamSplitLargeEvent (MongoDB 7.0, or 6.0.9+): an event "
                        + "over 16 MB cannot be sent whole; large.event.policy={} applies to it ({})", LogText.escape(db),
                        settings.largeEvents().name().toLowerCase(java.util.Locale.ROOT), LogText.message(e.getMessage()));
            }
            case WITHOUT_PRE_IMAGES -> {
                preImages = false;
                log.warn("Change stream of {}: the server does not know fullDocumentBeforeChange (MongoDB 6.0+): deletes carry no "
                        + "tenant header ({})", LogText.escape(db), LogText.message(e.getMessage()));
            }
            case REOPEN_BEFORE_FRAGMENTS -> {
                log.warn("Change stream of {}: {}; reopening before that event", LogText.escape(db), LogText.message(e.getMessage()));
                assembler.reset();
            }
            case PARK_COLLECTION -> park(((StreamOutput.CollectionFailure) e).collection(), "its records cannot be built: " + subject);
            case FAIL -> {
                out.failed(subject);
                return false;
            }
        }
        return true;
    }

    private void retry(RuntimeException e) throws InterruptedException {
        long delay = backoff.next();
        log.warn("Change stream of {} interrupted by a transient error (attempt {}), reopening in {} ms: {}", LogText.escape(db),
                backoff.attempts(), delay, LogText.message(e.toString()));
        out.retrying(e, delay);
        sleeper.sleep(delay);
    }

    /**
     * The server no longer has the history of some position. Which members are affected is asked of the
     * server ({@link HistoryWindow}), with the stream's own pipeline (without the split stage, for one,
     * MongoDB refuses to resume at a fragment's token with 280); those leave the stream for their
     * lost-history policy, the others go on. When every position still opens, the failure was not lost
     * history ({@link #notLostHistory}).
     */
    private void findLostHistory(RuntimeException cause) throws InterruptedException {
        List<StreamPosition> points = members.openingPoints();
        List<BsonDocument> pipeline = plan(false).pipeline();
        int first = HistoryWindow.firstReachable(points, p -> cursors.opensAt(new StreamPipeline.Opening(p, pipeline), preImages));
        List<StreamMembers.Lost> lost = members.removeBefore(first < points.size() ? points.get(first) : null);
        stream.membersChanged();
        if (lost.isEmpty()) {
            notLostHistory(cause, points);
            return;
        }
        log.warn("Change stream of {}: the history of {} collection(s) is no longer in the oplog ({}); the other {} go on",
                LogText.escape(db), lost.size(), LogText.message(cause.getMessage()), members.size());
        for (StreamMembers.Lost l : lost) {
            l.collection().historyLost(l.position(), l.afterCopy(), cause);
        }
    }

    /**
     * Every position still opens: the history vanished under a running cursor (the reopen resumes it), or
     * the server refused something else with ChangeStreamFatalError (280). Reopens after a back-off; after
     * {@value #MAX_UNEXPLAINED_FATAL} in a row without the stream getting past where it stood, the
     * collections at the stream's start (the position it cannot get past) are parked with the reason.
     */
    private void notLostHistory(RuntimeException cause, List<StreamPosition> points) throws InterruptedException {
        if (points.isEmpty()) {
            return; // nothing is read any more: no stream to reopen
        }
        StreamPosition start = points.get(0);
        if (fatalAt == null || start.compareTo(fatalAt) > 0) {
            fatalAt = start;
            fatalInARow = 0;
            fatalBackoff.reset();
        }
        if (++fatalInARow >= MAX_UNEXPLAINED_FATAL) {
            String reason = "the change stream answered " + cause.getMessage() + " " + fatalInARow + " times in a row at this "
                    + "collection's position (" + start + "), although its history is still in the oplog: the stream cannot get "
                    + "past it. Reset this collection's offset to copy it again (or to a later position), then restart the task";
            for (Namespace coll : members.at(start)) {
                park(coll, reason);
            }
            fatalAt = null;
            fatalInARow = 0;
            fatalBackoff.reset();
            return;
        }
        long delay = fatalBackoff.next();
        log.warn("Change stream of {}: {} ({} in a row), but every collection's position is still in the oplog; reopening in {} ms",
                LogText.escape(db), LogText.message(cause.getMessage()), fatalInARow, delay);
        out.retrying(cause, delay);
        sleeper.sleep(delay);
    }

    /**
     * An event is larger than the server may send (16 MB) and cannot be split. Reads on one event at a
     * time to find it, then reads it without its documents, and applies {@code large.event.policy} to its
     * collection: {@code skip} reports it (control record naming its {@code _id}) and reads on after it;
     * {@code park} stops reading that collection. The others go on either way; a restart meets the same
     * event again and decides the same, so no policy fails the task over and over.
     */
    private void readPastTooLargeEvent(RuntimeException cause) throws InterruptedException {
        if (!singleEvent) {
            singleEvent = true; // the batch that failed holds it somewhere: read on one event at a time
            singleEventReads = 0;
            log.warn("Change stream of {}: an event is too large to send ({}); reading one event at a time to find it", LogText.escape(db),
                    LogText.message(cause.getMessage()));
            return;
        }
        // the next event after the stream's read position is the one: read it without its documents
        stream.open(true);
        RawBsonDocument raw = stream.tryNext();
        if (raw == null) {
            stream.close();
            return; // not there yet: the next round finds it again
        }
        RawChangeEvent event = RawChangeEvent.parse(raw);
        StreamPosition at = StreamPosition.afterToken(event.token(), event.clusterTime());
        stream.close();
        singleEvent = false;
        Namespace coll = event.coll() == null || event.db() == null ? null : new Namespace(event.db(), event.coll());
        if (coll != null && !members.contains(coll)) {
            coll = null;
        }
        String what = event.type() + " of _id " + (event.documentId() == null ? "?" : event.documentId().toString())
                + " in " + event.db() + "." + event.coll() + " at " + event.clusterTime();
        String unsplittable = splitSupported
                ? "$changeStreamSplitLargeEvent cannot split it (one of its fields is over 16 MB on its own: " + cause.getMessage() + ")"
                : "this server cannot split it ($changeStreamSplitLargeEvent needs MongoDB 7.0, or 6.0.9+)";
        if (coll != null && settings.largeEvents() == LargeEventPolicy.PARK) {
            park(coll, "the " + what + " is larger than MongoDB can send (16 MB) and " + unsplittable + ". large.event.policy=park: "
                    + "this collection stops here; set large.event.policy=skip to read on past it, or reset the collection's offset "
                    + "to copy it again");
        } else if (coll != null) {
            String detail = "the " + what + " is larger than MongoDB can send (16 MB) and " + unsplittable
                    + ": SKIPPED (large.event.policy=skip). The "
                    + "destination keeps the document's previous version until its next change; reset this collection's offset "
                    + "to copy it again";
            log.warn("Change stream of {}: {}", LogText.escape(db), LogText.message(detail));
            out.publish(List.of(new StreamOutput.Delivery(members.handle(coll), new Captured.Control(ControlType.EVENT_TOO_LARGE, detail,
                    SourceOffset.streamAt(at)))));
            members.passed(coll, at, System.currentTimeMillis());
        }
        stream.readTo(at);
        members.advanceAll(at);
    }

    /** Stops reading a collection, which parks itself (its position stays where its last record left it). */
    private void park(Namespace coll, String reason) {
        CollectionHandle c = members.remove(coll);
        if (c == null) {
            return;
        }
        stream.membersChanged();
        c.park(reason);
    }
}
