package dev.tideline.sink.guard;

import dev.tideline.event.Namespace;
import dev.tideline.sink.decode.SinkChange;
import dev.tideline.sink.plan.NamespaceBatch;
import dev.tideline.sink.route.RoutedChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
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
 * <p>Insert first, read only on a clash: once a batch of a destination collection found no entry for any of its
 * documents (a copy, a stream of inserts), the next batch's whole-document writes skip the read. Their entries are
 * inserted ({@link VersionStore#insertUnlessPresent}); an insert that succeeds proves there was no entry, so the change
 * applies, as the read would have decided. An insert refused because the entry exists writes nothing; that entry is
 * then read and decided exactly as above (stale: the document is not written; else the entry is replaced), and the
 * collection's next batch reads first again. One round trip per batch instead of two while documents are new; one
 * more for a batch that guessed wrong. Deletes and partial updates are always read first (their documents exist).
 *
 * <p>Records with the same key share a partition and so one task; no two tasks race on an entry.
 */
public final class StaleWriteGuard implements WriteGuard {
    /** Collections remembered as "new documents" at most: beyond it, the whole set is forgotten (read first). */
    private static final int MAX_REMEMBERED = 10_000;

    private final VersionStore store;
    /** Destination collections whose last batch found no entry for any document: their next batch inserts first. */
    private final Set<Namespace> insertFirst = new HashSet<>();

    public StaleWriteGuard(VersionStore store) {
        this.store = store;
    }

    @Override
    public Admitted admit(NamespaceBatch batch) {
        boolean guessNew = insertFirst.contains(batch.destination());
        List<BsonValue> readIds = new ArrayList<>();
        Set<BsonValue> unread = new HashSet<>();
        for (RoutedChange rc : batch.writes()) {
            SinkChange c = rc.change();
            if (guessNew && c.version() != null && c.kind() == SinkChange.Kind.WRITE) {
                unread.add(c.id());
            } else if (c.version() != null || c.isDelete()) {
                readIds.add(c.id());
            }
        }
        if (readIds.isEmpty()) {
            return new Admitted(batch, 0, Set.of(), unread);
        }
        VersionStore.Snapshot stored = store.read(batch.destination(), readIds);
        if (!guessNew && unread.isEmpty() && stored.absent().size() == new HashSet<>(readIds).size()) {
            remember(batch.destination());
        }
        List<RoutedChange> kept = new ArrayList<>(batch.writes().size());
        for (RoutedChange rc : batch.writes()) {
            var c = rc.change();
            if (unread.contains(c.id()) || decide(c, stored.versions().get(c.id())) == GuardRules.Decision.APPLY) {
                kept.add(rc);
            }
        }
        return new Admitted(batch.withWrites(kept), batch.writes().size() - kept.size(), stored.absent(), unread);
    }

    /**
     * Kept apart from {@link #admit} so that a partial update refused after admission (its document is
     * absent at the destination) leaves no version behind for a document that was never written.
     */
    @Override
    public Recorded record(Admitted admitted, NamespaceBatch toWrite) {
        Namespace ns = toWrite.destination();
        List<RoutedChange> guessed = new ArrayList<>();
        List<RoutedChange> read = new ArrayList<>();
        for (RoutedChange rc : toWrite.writes()) {
            (admitted.unread().contains(rc.change().id()) ? guessed : read).add(rc);
        }
        List<VersionStore.VersionedWrite> versions = versionsToRecord(read, admitted.absent());
        if (!versions.isEmpty()) {
            store.write(ns, versions);
        }
        if (guessed.isEmpty()) {
            return new Recorded(toWrite, 0);
        }
        List<VersionStore.VersionedWrite> present = store.insertUnlessPresent(ns, versionsToRecord(guessed, Set.of()));
        if (present.isEmpty()) {
            return new Recorded(toWrite, 0);
        }
        insertFirst.remove(ns);
        return decidePresent(ns, toWrite, present);
    }

    /** The guessed writes whose entry exists after all: read, decided as {@link #admit} decides, entries of the applied replaced. */
    private Recorded decidePresent(Namespace ns, NamespaceBatch toWrite, List<VersionStore.VersionedWrite> present) {
        Map<BsonValue, VersionStore.VersionedWrite> byId = new HashMap<>();
        present.forEach(w -> byId.put(w.id(), w));
        VersionStore.Snapshot stored = store.read(ns, new ArrayList<>(byId.keySet()));
        List<RoutedChange> kept = new ArrayList<>(toWrite.writes().size());
        List<VersionStore.VersionedWrite> replaces = new ArrayList<>();
        for (RoutedChange rc : toWrite.writes()) {
            VersionStore.VersionedWrite w = byId.get(rc.change().id());
            if (w == null) {
                kept.add(rc);
            } else if (decide(rc.change(), stored.versions().get(w.id())) == GuardRules.Decision.APPLY) {
                kept.add(rc);
                replaces.add(new VersionStore.VersionedWrite(w.id(), w.version(), w.deleted(), w.topic(), w.partition(),
                        false, w.txnOpIndex()));
            }
        }
        if (!replaces.isEmpty()) {
            store.write(ns, replaces);
        }
        return new Recorded(toWrite.withWrites(kept), toWrite.writes().size() - kept.size());
    }

    private static GuardRules.Decision decide(SinkChange c, StoredVersion stored) {
        return GuardRules.decide(c.version(), c.txnOpIndex(), c.isDelete(), Optional.ofNullable(stored));
    }

    private void remember(Namespace ns) {
        if (insertFirst.size() >= MAX_REMEMBERED) {
            insertFirst.clear(); // a bound, not a cache policy: forgetting only costs a read
        }
        insertFirst.add(ns);
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
