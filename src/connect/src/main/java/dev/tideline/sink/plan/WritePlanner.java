package dev.tideline.sink.plan;

import dev.tideline.event.Namespace;
import dev.tideline.sink.check.RecordFaults;
import dev.tideline.sink.decode.Ids;
import dev.tideline.sink.decode.SinkChange;
import dev.tideline.sink.decode.UpdateDescription;
import dev.tideline.sink.route.RoutedChange;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Plans the writes of a batch. Pure: no I/O, the same input always gives the same plan.
 *
 * <p>Every write is a whole-document replace or a delete by {@code _id}, so only the last change to a
 * document matters: earlier ones in the same batch are superseded and never sent. A partial update
 * (a change description without the document) is folded into the change before it instead: onto a
 * whole document it gives the new whole document, onto another partial update it queues behind it;
 * after a delete it has nothing to apply to and is refused. Records with the
 * same key share a partition, so arrival order is the per-key order; the one exception is a change
 * that arrives later but carries an OLDER version than the one it would replace (two topics feeding
 * one collection): it loses, as the stale-write guard would decide. The survivors keep the arrival
 * order of their records, and are then sent as unordered bulk writes (order no longer matters once
 * there is one write per document).
 */
public final class WritePlanner {
    private WritePlanner() {
    }

    public static WritePlan plan(List<RoutedChange> changes) {
        return plan(changes, new PaddingBudget());
    }

    /** @param padding the batch's bound on the nulls partial updates add to arrays */
    public static WritePlan plan(List<RoutedChange> changes, PaddingBudget padding) {
        Map<Namespace, Map<BsonValue, RoutedChange>> latest = new LinkedHashMap<>();
        int superseded = 0;
        List<Refusal> refused = new ArrayList<>();
        for (RoutedChange c : changes) {
            Map<BsonValue, RoutedChange> perId = latest.computeIfAbsent(c.destination(), ns -> new LinkedHashMap<>());
            BsonValue id = c.change().id();
            RoutedChange previous = perId.get(id);
            if (previous == null) {
                perId.put(id, c);
                continue;
            }
            if (isOlder(c, previous) || isBareTombstoneAfterDelete(c, previous)) {
                superseded++;
                continue;
            }
            RoutedChange survivor = c;
            if (c.change().isPartial()) {
                if (previous.change().isDelete()) {
                    refused.add(new Refusal(c, "an update without the full document for _id " + Ids.show(id)
                            + ", which a delete earlier in the same batch removed: there is nothing to apply it to"));
                    continue;
                }
                try {
                    survivor = fold(previous, c, padding);
                } catch (UpdateApplier.NotApplicable e) {
                    refused.add(new Refusal(c, "the update of _id " + Ids.show(id) + " does not fit the document "
                            + "written before it in the same batch: " + e.getMessage()));
                    continue;
                } catch (UpdateApplier.OutOfBounds e) {
                    refused.add(new Refusal(c, "refused: the update of _id " + Ids.show(id) + " " + e.getMessage()));
                    continue;
                } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
                    refused.add(new Refusal(c, RecordFaults.reason("while applying the update of _id " + Ids.show(id)
                            + " to the document written before it in the same batch", e)));
                    continue;
                }
            }
            superseded++;
            perId.remove(id); // re-insert so the survivor sits at its own arrival position
            perId.put(id, survivor);
        }
        List<NamespaceBatch> batches = new ArrayList<>(latest.size());
        latest.forEach((ns, perId) -> batches.add(new NamespaceBatch(ns, new ArrayList<>(perId.values()))));
        return new WritePlan(batches, superseded, refused);
    }

    /**
     * A partial update after an earlier change to the same document: after a whole document it gives the
     * whole new document; after another partial update, both descriptions in order. Either way one
     * write per document remains, carrying the later change's version and record.
     */
    private static RoutedChange fold(RoutedChange previous, RoutedChange update, PaddingBudget padding) {
        SinkChange p = previous.change();
        SinkChange u = update.change();
        SinkChange folded;
        if (p.isPartial()) {
            List<UpdateDescription> both = new ArrayList<>(p.updates());
            both.addAll(u.updates());
            List<SinkRecord> records = new ArrayList<>(p.updateRecords());
            records.addAll(u.updateRecords());
            folded = new SinkChange(u.record(), SinkChange.Kind.UPDATE, u.sourceNs(), u.id(), null, u.version(), both,
                    u.shardKey(), records);
        } else {
            folded = u.asWrite(UpdateApplier.apply(p.document(), u.updates(), padding));
        }
        return new RoutedChange(folded, update.destination());
    }

    /**
     * The Kafka tombstone a source emits right after a delete (delete.tombstone=true) carries no
     * version; it must not replace the versioned delete it mirrors, or the stale-write guard, unable
     * to prove the bare tombstone newer than the stored document, would skip the delete altogether.
     */
    private static boolean isBareTombstoneAfterDelete(RoutedChange candidate, RoutedChange current) {
        return candidate.change().isDelete() && candidate.change().version() == null && current.change().isDelete();
    }

    private static boolean isOlder(RoutedChange candidate, RoutedChange current) {
        SinkChange a = candidate.change();
        SinkChange b = current.change();
        if (a.version() == null || b.version() == null) {
            return false;
        }
        Optional<Integer> cmp = VersionOrder.compare(a.version(), a.txnOpIndex(), b.version(), b.txnOpIndex());
        return cmp.isPresent() && cmp.get() < 0;
    }
}
