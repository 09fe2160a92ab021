package dev.tideline.sink.guard;

import dev.tideline.sink.plan.NamespaceBatch;
import dev.tideline.sink.route.RoutedChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.bson.BsonValue;

/**
 * Keeps an older change from overwriting a newer document, and a late delete from removing a
 * document re-inserted after it.
 *
 * <p>Why a sidecar: destination documents must stay byte-identical to the source, so the version
 * (source cluster time, or the configured version field) cannot live in them. It lives in
 * {@link VersionStore} instead, in the destination database.
 *
 * <p>Per batch and destination collection: one {@code $in} read of the stored versions; changes
 * strictly older than the stored version are dropped; equal versions are applied again, so a replay
 * of the same records lands and stays idempotent. The read also tells which documents have no entry
 * yet, whose versions are then inserted rather than upserted (half the cost, see {@link VersionStore#write}). The versions are written ({@link #record}) BEFORE
 * the documents: if
 * the task dies between the two, the batch's offsets were not committed, Connect re-delivers it, the
 * versions then compare equal and the documents are written. The opposite order could leave a newer
 * document with an older stored version, letting a stale change through later. Changes with no
 * version (plain documents) bypass the guard; a backfill {@code read} carries as cluster time the
 * stream start captured before the backfill, so any change streamed after the copy compares newer.
 *
 * <p>Records with the same key share a partition and so one task; no two tasks race on an entry.
 */
public final class StaleWriteGuard implements WriteGuard {
    private final VersionStore store;

    public StaleWriteGuard(VersionStore store) {
        this.store = store;
    }

    @Override
    public Admitted admit(NamespaceBatch batch) {
        List<BsonValue> guardedIds = batch.writes().stream().map(RoutedChange::change)
                .filter(c -> c.version() != null || c.isDelete())
                .map(c -> c.id()).toList();
        if (guardedIds.isEmpty()) {
            return new Admitted(batch, 0, Set.of());
        }
        VersionStore.Snapshot stored = store.read(batch.destination(), guardedIds);
        List<RoutedChange> kept = new ArrayList<>(batch.writes().size());
        for (RoutedChange rc : batch.writes()) {
            var c = rc.change();
            GuardRules.Decision d = GuardRules.decide(c.version(), c.txnOpIndex(), c.isDelete(), Optional.ofNullable(stored.versions().get(c.id())));
            if (d == GuardRules.Decision.APPLY) {
                kept.add(rc);
            }
        }
        return new Admitted(batch.withWrites(kept), batch.writes().size() - kept.size(), stored.absent());
    }

    /**
     * Kept apart from {@link #admit} so that a partial update refused after admission (its document is
     * absent at the destination) leaves no version behind for a document that was never written.
     */
    @Override
    public void record(Admitted admitted, NamespaceBatch toWrite) {
        List<VersionStore.VersionedWrite> versions = versionsToRecord(toWrite.writes(), admitted.absent());
        if (!versions.isEmpty()) {
            store.write(toWrite.destination(), versions);
        }
    }

    /**
     * The sidecar entries for these writes: one per change that carries a version, marked fresh
     * (inserted) when admission found no entry for its document. Pure.
     */
    static List<VersionStore.VersionedWrite> versionsToRecord(List<RoutedChange> writes, Set<BsonValue> absent) {
        List<VersionStore.VersionedWrite> versions = new ArrayList<>(writes.size());
        for (RoutedChange rc : writes) {
            var c = rc.change();
            if (c.version() != null) {
                versions.add(new VersionStore.VersionedWrite(c.id(), c.version(), c.isDelete(), c.record().topic(),
                        c.record().kafkaPartition(), absent.contains(c.id()), c.txnOpIndex()));
            }
        }
        return versions;
    }
}
