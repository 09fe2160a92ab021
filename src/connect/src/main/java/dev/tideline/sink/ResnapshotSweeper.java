package dev.tideline.sink;

import com.mongodb.MongoException;
import dev.tideline.event.Namespace;
import dev.tideline.event.RefusedRecordException;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.log.LogText;
import dev.tideline.sink.check.IdRules;
import dev.tideline.sink.decode.Ids;
import dev.tideline.sink.front.MarkerReader;
import dev.tideline.sink.guard.CopyBegins;
import dev.tideline.sink.guard.SweepRule;
import dev.tideline.sink.guard.VersionBound;
import dev.tideline.sink.guard.VersionStore;
import dev.tideline.sink.route.NamespaceRouter;
import dev.tideline.sink.write.RecordFailure;
import dev.tideline.sink.write.SweepWriter;
import dev.tideline.sink.write.WriteFailures;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acts on the source's resnapshot markers ({@link ResnapshotMarker}): on {@code complete}, removes
 * the destination documents of that topic partition that the copy found deleted at the source
 * ({@link SweepRule}), and records them as deleted at the epoch in the version sidecar, so that the
 * destination equals the source again after a lost history.
 *
 * <p>Runs after the batch's changes are written: every copy that came before the marker is applied,
 * and a change after it is newer than the epoch, so it is never swept. Idempotent: a re-delivered
 * marker finds nothing more to remove. A marker of a repair (an {@code _id} range, its
 * {@link ResnapshotMarker#scope()}) sweeps inside that range only. Only this task applies that partition's changes, so nothing
 * races the sweep on the same documents. Documents first, then their entries: a crash between the two
 * leaves the entries live and older than the epoch, so the re-delivered marker removes them again.
 *
 * <p>Markers are records, so untrusted: an epoch further ahead of this worker's clock than
 * {@code version.max.ahead.ms} is refused ({@link VersionBound}), and a {@code complete} sweeps only when
 * its {@code begin} (same epoch) arrived earlier on the same topic partition, as the source sends them
 * ({@link CopyBegins}, kept in the destination so that it holds across restarts). A refused marker goes
 * to the dead letter queue with its reason and sweeps nothing.
 */
final class ResnapshotSweeper {
    private static final Logger log = LoggerFactory.getLogger(ResnapshotSweeper.class);
    private static final int CHUNK = 1000;

    /** A marker read from a record, with where it came from and where its collection lands. */
    record Pending(ResnapshotMarker marker, String topic, int partition, Namespace destination, SinkRecord record) {
        /** The same marker re-sent (another record) is the same copy on the same partition. */
        List<Object> copy() {
            return List.of(marker, topic, partition, destination);
        }
    }

    private final MarkerReader markers;
    private final VersionStore store;
    private final SweepWriter writer;
    private final CopyBegins begins;

    /** @param store null when {@code stale.guard=off}: no versions are kept, so nothing can be swept */
    ResnapshotSweeper(NamespaceRouter router, VersionStore store, SweepWriter writer, CopyBegins begins, VersionBound bound) {
        this.markers = new MarkerReader(router, bound);
        this.store = store;
        this.writer = writer;
        this.begins = begins;
    }

    /**
     * @return the marker a record carries (empty for every other record, and for markers of a collection
     * the filter leaves to another destination)
     * @throws dev.tideline.event.MalformedRecordException for a marker with a missing or bad header
     * @throws RefusedRecordException for a marker whose epoch is too far ahead of this worker's clock
     */
    Optional<Pending> read(SinkRecord record) {
        return markers.read(record).map(m -> new Pending(m.marker(), record.topic(),
                record.kafkaPartition() == null ? 0 : record.kafkaPartition(), m.destination(), record));
    }

    /**
     * Applies a batch's markers, in order, once its changes are written.
     *
     * @return the markers refused: a {@code complete} whose {@code begin} this sink never saw on that partition
     */
    List<RecordFailure> apply(List<Pending> markers) {
        List<RecordFailure> refused = new ArrayList<>();
        Map<List<Object>, Boolean> outcomes = new HashMap<>(); // a marker re-sent within one batch is applied once
        for (Pending p : markers) {
            try {
                if (!outcomes.computeIfAbsent(p.copy(), copy -> applyOne(p))) {
                    refused.add(new RecordFailure(p.record(), "refused: a " + p.marker().stage().wireName() + " marker of "
                            + p.marker().ns() + " (epoch " + ResnapshotMarker.show(p.marker().epoch()) + ") without its "
                            + ResnapshotMarker.Stage.BEGIN.wireName() + " marker of the same epoch earlier on " + p.topic() + "-"
                            + p.partition() + ": it sweeps nothing. The source sends the begin first on every partition, so this "
                            + "one is forged or orphaned (a sink that started reading in the middle of a copy, or was upgraded "
                            + "during one): if documents deleted at the source remain at " + p.destination() + ", repair the "
                            + "collection (docs/repair.md)", null));
                }
            } catch (MongoException e) {
                throw WriteFailures.translate(e, "applying the " + p.marker().stage().wireName() + " marker of " + p.marker().ns()
                        + " to " + p.destination() + " (the " + CopyBegins.COLLECTION + " and " + VersionStore.COLLECTION
                        + " collections)");
            }
        }
        return refused;
    }

    /** @return false for a complete marker without its begin */
    private boolean applyOne(Pending p) {
        if (p.marker().stage() == ResnapshotMarker.Stage.BEGIN) {
            begins.recordBegin(p.destination(), p.topic(), p.partition(), p.marker().epoch());
            if (p.marker().scope().isAll()) {
                log.info("Resnapshot of {} (epoch {}) begins on {}-{}: the source copies the collection (first copy, "
                        + "a copy after a restart without a committed position, or after a lost history)", LogText.escape(p.marker().ns()), ResnapshotMarker.show(p.marker().epoch()), p.topic(), p.partition());
            } else {
                log.info("Repair of {} (epoch {}) begins on {}-{}: the source copies {} again", LogText.escape(p.marker().ns()),
                        ResnapshotMarker.show(p.marker().epoch()), p.topic(), p.partition(),
                        LogText.message(p.marker().scope().describe()));
            }
            return true;
        }
        if (!begins.begun(p.destination(), p.topic(), p.partition(), p.marker().epoch())) {
            return false;
        }
        sweep(p);
        return true;
    }

    private long sweep(Pending p) {
        // "X" or "X, the ids from A to B": every line below says which copy it is about
        String epoch = ResnapshotMarker.show(p.marker().epoch())
                + (p.marker().scope().isAll() ? "" : ", " + LogText.message(p.marker().scope().describe()));
        if (store == null) {
            log.warn("Resnapshot of {} (epoch {}) complete on {}-{}, but stale.guard=off keeps no versions: documents deleted "
                            + "at the source and not seen by the copy stay at {}. Set stale.guard=auto to have them removed.",
                    LogText.escape(p.marker().ns()), epoch, p.topic(), p.partition(), LogText.escape(p.destination()));
            return 0;
        }
        List<BsonValue> gone = new ArrayList<>();
        List<BsonValue> unsafe = new ArrayList<>();
        store.forEachLiveEntry(p.destination(), p.topic(), p.partition(), e -> {
            if (SweepRule.sweeps(e.version(), p.marker().epoch(), e.id(), p.marker().scope())) {
                // an entry no change of this version can have written (an id that would not match by value):
                // never put into a delete's filter
                (IdRules.problem(e.id()).isPresent() ? unsafe : gone).add(e.id());
            }
        });
        if (!unsafe.isEmpty()) {
            log.warn("Resnapshot of {} (epoch {}): {} entries of {} in the {} collection name ids that would not match by "
                            + "value (e.g. {}: {}); those documents are left as they are", LogText.escape(p.marker().ns()), epoch, unsafe.size(),
                    LogText.escape(p.destination()), VersionStore.COLLECTION, LogText.escape(Ids.show(unsafe.get(0))),
                    LogText.message(IdRules.problem(unsafe.get(0)).orElse("")));
        }
        long removed = 0;
        for (int i = 0; i < gone.size(); i += CHUNK) {
            List<BsonValue> chunk = gone.subList(i, Math.min(gone.size(), i + CHUNK));
            removed += writer.delete(p.destination(), chunk);
            store.markDeleted(p.destination(), chunk, p.marker().epoch());
        }
        log.info("Resnapshot of {} (epoch {}) complete on {}-{}: swept {} documents of {} that the copy did not find at "
                + "the source", LogText.escape(p.marker().ns()), epoch, p.topic(), p.partition(), removed, LogText.escape(p.destination()));
        if (p.partition() == 0) {
            long beyond = store.countLiveBeyond(p.destination(), p.topic(), p.marker().partitions());
            if (beyond > 0) {
                log.warn("Topic {} has more partitions than the {} the resnapshot markers of {} went to: {} documents of {} "
                                + "came through the others and are not swept. Set resnapshot.marker.partitions on the source "
                                + "connector to the topic's partition count.", p.topic(), p.marker().partitions(),
                        LogText.escape(p.marker().ns()), beyond, LogText.escape(p.destination()));
            }
        }
        return removed;
    }
}
