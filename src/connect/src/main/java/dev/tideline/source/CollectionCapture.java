package dev.tideline.source;

import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.log.LogText;
import dev.tideline.source.StartPlanner.Phase;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionHandle;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.config.CaptureSettings.LostHistoryPolicy;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One collection a task captures, owner of its lifecycle: its record factory (which holds its sequence
 * counter), its metrics, its filter, which part of the task reads it now (the copy pool, the database's
 * change stream, or the scan pool; one at a time, each handing it over to the next), its ONE position,
 * and what follows when reading it goes wrong: copied again after a rename onto it, the lost-history
 * policy, parked.
 *
 * <p>Lost history is decided here: a copy that outlived the oplog window is parked with what to do
 * (copying again would only outlive it again); otherwise {@code lost.history.policy} applies.
 */
final class CollectionCapture implements CollectionHandle {
    private static final Logger log = LoggerFactory.getLogger(CollectionCapture.class);

    enum State { COPYING, STREAMING, SCANNING, PARKED }

    /** What a collection's lifecycle uses of its task. */
    record Wiring(Publisher publisher, Coordinator coordinator, CollectionCopies copies, DatabaseStreams streams,
                  LostHistoryPolicy lostHistoryPolicy, MongoClient client, Consumer<ConnectException> fail) {
    }

    private final Namespace ns;
    private final RecordFactory records;
    private final RecordState recordState;
    private final CaptureMetrics metrics;
    private final BsonDocument filter;
    private final Wiring task;
    private volatile State state;
    /** The position after the last item handed over, or null before the first. */
    private volatile SourceOffset position;

    CollectionCapture(Namespace ns, RecordFactory records, RecordState recordState, CaptureMetrics metrics, BsonDocument filter,
                      SourceOffset stored, Wiring task) {
        this.ns = ns;
        this.records = records;
        this.recordState = recordState;
        this.metrics = metrics;
        this.filter = filter;
        this.position = stored;
        this.task = task;
    }

    @Override
    public Namespace ns() {
        return ns;
    }

    RecordFactory records() {
        return records;
    }

    /** Where the collection's repairs stand, as the records handed over so far say. */
    RepairProgress repair() {
        return recordState.repair();
    }

    CaptureMetrics metrics() {
        return metrics;
    }

    BsonDocument filter() {
        return filter;
    }

    /** The same collection's capture of one chunk of a split copy: its records go under the chunk's partition. */
    CollectionCapture forChunk(RecordFactory chunkRecords, SourceOffset stored) {
        return new CollectionCapture(ns, chunkRecords, recordState.forChunk(), metrics, filter, stored, task);
    }

    State state() {
        return state;
    }

    /** The copy pool took the collection: it is read by its copy until {@link #copied} hands it to its stream. */
    void copyStarted() {
        state = State.COPYING;
    }

    /** The scan pool took the collection: it is read by date scans from now on. */
    void scanStarted() {
        state = State.SCANNING;
    }

    @Override
    public SourceOffset position() {
        return position;
    }

    @Override
    public void append(Captured item, List<SourceRecord> out) {
        records.append(item, recordState, out);
    }

    @Override
    public void published(List<Captured> items) {
        position = items.get(items.size() - 1).offset();
        metrics.published(items);
        for (Captured item : items) {
            if (item instanceof Captured.Control ctl && ctl.type() == ControlType.EVENT_TOO_LARGE) {
                metrics.eventSkipped();
            }
        }
    }

    /** The collection's copy is over: it streams from the copy's start. */
    void copied(BsonTimestamp streamStart) {
        metrics.streaming();
        stream(SourceOffset.streamAfterCopy(streamStart));
    }

    /** Reads the collection from {@code from} on in its database's change stream. */
    void stream(SourceOffset from) {
        state = State.STREAMING;
        metrics.opened(Phase.STREAM, null);
        task.streams().join(this, from);
    }

    @Override
    public void recopy(String reason, BsonTimestamp replacedAt) {
        log.warn("{} is copied again: {}", LogText.escape(ns), LogText.message(reason));
        task.copies().submitReplaced(this, replacedAt);
    }

    @Override
    public void historyLost(StreamPosition at, boolean afterCopy, RuntimeException cause) {
        if (afterCopy) {
            park("its copy took longer than the oplog window: the copy started at " + at + " and the oplog no longer "
                    + "reaches back to it, so the changes made during the copy cannot be read (" + cause.getMessage() + "). Copying "
                    + "again would outlive the window again. Make the oplog hold more than the copy takes (replSetResizeOplog, "
                    + "or storage.oplogMinRetentionHours), or run fewer copies at once (backfill.max.concurrent), then reset this "
                    + "collection's offset (DELETE /connectors/<name>/offsets with the connector stopped) to copy it again");
            return;
        }
        LostHistoryPolicy policy = task.lostHistoryPolicy();
        metrics.historyLost(policy != LostHistoryPolicy.LATEST);
        String what = "the change stream of " + ns + " can no longer resume from " + at + " (" + cause.getMessage() + ")";
        switch (policy) {
            case FAIL -> task.fail().accept(new ConnectException(what + ". lost.history.policy=fail: fix by setting "
                    + "lost.history.policy=resnapshot (copy the collection again) or latest, or reset this collection's offset "
                    + "(DELETE/PATCH /connectors/<name>/offsets).", cause));
            case RESNAPSHOT -> task.coordinator().carryOut("the lost-history policy of " + ns, () -> {
                log.warn("LOST HISTORY: {}. Policy resnapshot: copying the collection again, then streaming.", LogText.message(what));
                task.publisher().publish(this, List.of(new Captured.Control(ControlType.HISTORY_LOST, what + "; policy resnapshot",
                        SourceOffset.streamAt(at))));
                task.copies().submit(this, null);
            });
            case LATEST -> task.coordinator().carryOut("the lost-history policy of " + ns, () -> {
                BsonTimestamp now = ServerClock.streamStart(task.client().getDatabase(ns.db()));
                log.warn("LOST HISTORY: {}. Policy latest: streaming from {}; changes in the gap are NOT captured.",
                        LogText.message(what), now);
                SourceOffset from = SourceOffset.streamFrom(now);
                task.publisher().publish(this, List.of(new Captured.Control(ControlType.HISTORY_LOST, what + "; policy latest", from)));
                stream(from);
            });
            default -> throw new IllegalStateException("unknown policy " + policy);
        }
    }

    /** Stops capturing the collection for a reason of its own, saying so in a control record at its position; the others go on. */
    @Override
    public void park(String reason) {
        String detail = ns + " is PARKED: " + reason;
        log.error("{}. The task's other collections go on.", LogText.message(detail));
        state = State.PARKED;
        metrics.parked();
        SourceOffset at = position;
        if (at != null) {
            try {
                task.publisher().publish(this, List.of(new Captured.Control(ControlType.PARKED, detail, at)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return ns.fullName();
    }
}
