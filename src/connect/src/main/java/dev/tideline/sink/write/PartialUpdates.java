package dev.tideline.sink.write;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import dev.tideline.sink.check.ExactMatch;
import dev.tideline.sink.check.DocumentRules;
import dev.tideline.sink.check.RecordFaults;
import dev.tideline.sink.decode.Ids;
import dev.tideline.sink.decode.SinkChange;
import dev.tideline.sink.plan.NamespaceBatch;
import dev.tideline.sink.plan.PaddingBudget;
import dev.tideline.sink.plan.UpdateApplier;
import dev.tideline.sink.route.RoutedChange;
import dev.tideline.sink.decode.UpdateDescription;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Turns the partial updates of a batch (change descriptions without the document: the official
 * connector's default output, Debezium's {@code change_streams} mode) into whole-document writes:
 * one {@code $in} read of the destination's copies, the descriptions applied in memory
 * ({@link UpdateApplier}), and the result written by {@link BulkWriteExecutor} like any other write.
 *
 * <p>Why read-modify-write rather than sending {@code $set}/{@code $unset}: (1) an update whose
 * document is absent must be refused, and an unordered bulk write reports only how many updates
 * matched, not which; (2) truncatedArrays and updates of the same array's elements cannot share one
 * update statement (MongoDB refuses conflicting paths), and several updates to one document in a
 * batch would need ordered writes; (3) the result is the document MongoDB holds at the source, field
 * order included, written in the one bulk write per batch. It relies on what the stale-write guard
 * relies on: every change of a document reaches the same task (records keyed by the document), and
 * nothing else writes the destination collection meanwhile.
 *
 * <p>A partial update whose document is absent at the destination cannot be reconstructed: it is
 * refused (dead letter queue) with what to do, never written as half a document.
 */
public final class PartialUpdates {
    private static final int IN_CHUNK = 1000;

    private final MongoClient client;

    public PartialUpdates(MongoClient client) {
        this.client = client;
    }

    /** The batch with every partial update made a whole-document write, and the updates that could not be. */
    public record Resolved(NamespaceBatch batch, List<RecordFailure> refused) {
    }

    public Resolved resolve(NamespaceBatch batch) {
        return resolve(batch, new PaddingBudget());
    }

    /** @param padding the batch's bound on the nulls partial updates add to arrays */
    public Resolved resolve(NamespaceBatch batch, PaddingBudget padding) {
        List<BsonValue> ids = batch.writes().stream().map(RoutedChange::change).filter(SinkChange::isPartial)
                .map(SinkChange::id).toList();
        if (ids.isEmpty()) {
            return new Resolved(batch, List.of());
        }
        Map<BsonValue, BsonDocument> current;
        try {
            current = read(batch, ids);
        } catch (MongoException e) {
            throw WriteFailures.translate(e, "reading the documents that partial updates change in " + batch.destination());
        }
        List<RoutedChange> writes = new ArrayList<>(batch.writes().size());
        List<RecordFailure> refused = new ArrayList<>();
        for (RoutedChange rc : batch.writes()) {
            SinkChange c = rc.change();
            if (!c.isPartial()) {
                writes.add(rc);
                continue;
            }
            BsonDocument base = current.get(c.id());
            if (base == null) {
                refuseAll(c, "update without full document for _id " + Ids.show(c.id())
                        + ", which is absent at the destination " + batch.destination() + ": it cannot be reconstructed. "
                        + "Enable change.stream.full.document=updateLookup on the official source connector (Debezium: "
                        + "capture.mode=change_streams_update_full), or copy the collection first (copy.existing / "
                        + "snapshot), then replay", null, refused);
                continue;
            }
            Optional<BsonDocument> doc = applyWithin(c, base, batch, padding, refused);
            if (doc.isPresent()) {
                // the decoder checked the documents records carry; one made here is checked here, before its version is recorded
                Optional<String> problem = DocumentRules.replacementProblem(doc.get());
                if (problem.isPresent()) {
                    refuseAll(c, "the update of _id " + Ids.show(c.id()) + " would leave the document at " + batch.destination()
                            + " unwritable: it " + problem.get(), null, refused);
                } else {
                    writes.add(new RoutedChange(c.asWrite(doc.get()), rc.destination()));
                }
            }
        }
        return new Resolved(batch.withWrites(writes), refused);
    }

    /**
     * The document with the change's descriptions applied. A description MongoDB would refuse whatever the
     * document ({@link UpdateApplier.OutOfBounds}: it never happened at the source) is refused as its own
     * record and the others are applied without it; a change that does not fit the document refuses every
     * record folded into it. Empty when nothing is left to write.
     */
    private static Optional<BsonDocument> applyWithin(SinkChange c, BsonDocument base, NamespaceBatch batch, PaddingBudget padding,
                                                      List<RecordFailure> refused) {
        List<UpdateDescription> descriptions = new ArrayList<>(c.updates());
        List<SinkRecord> records = new ArrayList<>(c.updateRecords());
        while (!descriptions.isEmpty()) {
            try {
                return Optional.of(UpdateApplier.apply(base, descriptions, padding));
            } catch (UpdateApplier.OutOfBounds e) {
                SinkRecord record = records.remove(e.description());
                descriptions.remove(e.description());
                refused.add(new RecordFailure(record, "refused: the update of _id " + Ids.show(c.id()) + " for "
                        + batch.destination() + " " + e.getMessage(), e));
            } catch (UpdateApplier.NotApplicable e) {
                refuseAll(c, "the update of _id " + Ids.show(c.id()) + " does not fit the document at the destination "
                        + batch.destination() + " (it differs from the source's): " + e.getMessage(), e, refused);
                return Optional.empty();
            } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
                refuseAll(c, RecordFaults.reason("while applying the update of _id " + Ids.show(c.id()) + " to the document at "
                        + batch.destination(), e), e, refused);
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** Refuses every record folded into the change, each once. */
    private static void refuseAll(SinkChange c, String reason, Throwable cause, List<RecordFailure> refused) {
        new LinkedHashSet<>(c.updateRecords()).forEach(r -> refused.add(new RecordFailure(r, reason, cause)));
    }

    private Map<BsonValue, BsonDocument> read(NamespaceBatch batch, List<BsonValue> ids) {
        var coll = client.getDatabase(batch.destination().db()).getCollection(batch.destination().coll(), BsonDocument.class);
        Map<BsonValue, BsonDocument> found = new HashMap<>();
        for (int i = 0; i < ids.size(); i += IN_CHUNK) {
            for (BsonDocument d : coll.find(ExactMatch.idIn(ids.subList(i, Math.min(ids.size(), i + IN_CHUNK))))) {
                found.put(d.get("_id"), d);
            }
        }
        return found;
    }
}
