package dev.tideline.peer.sink;

import dev.tideline.peer.LastWriterWins.Action;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonInt64;

/** What one peer sink task did, since it started: per decision, per origin applied, conflicts. */
final class PeerCounters {
    private final Map<Action, Long> decisions = new EnumMap<>(Action.class);
    private final Map<String, Long> appliedByOrigin = new TreeMap<>();
    private long records;
    private long conflictsResolved;
    private long conflictsRecorded;
    private long retries;
    private long outOfScope;
    private long heldForLocalDelete;

    void record() {
        records++;
    }

    void decided(Action a, String origin) {
        decisions.merge(a, 1L, Long::sum);
        if (a == Action.APPLY_WRITE || a == Action.APPLY_DELETE || a == Action.RECORD_REMOTE_DELETE) {
            appliedByOrigin.merge(origin, 1L, Long::sum);
        }
    }

    void conflictResolved() {
        conflictsResolved++;
    }

    void conflictRecorded() {
        conflictsRecorded++;
    }

    void outOfScope() {
        outOfScope++;
    }

    /** A peer change waited for this cluster's own record of a local delete (counted once per record). */
    void heldForLocalDelete() {
        heldForLocalDelete++;
    }

    void retried() {
        retries++;
    }

    long count(Action a) {
        return decisions.getOrDefault(a, 0L);
    }

    BsonDocument toBson() {
        BsonDocument d = new BsonDocument("records", new BsonInt64(records));
        BsonDocument byAction = new BsonDocument();
        for (Action a : Action.values()) {
            byAction.append(a.name().toLowerCase(java.util.Locale.ROOT), new BsonInt64(count(a)));
        }
        d.append("decisions", byAction);
        BsonDocument byOrigin = new BsonDocument();
        appliedByOrigin.forEach((o, n) -> byOrigin.append(o, new BsonInt64(n)));
        d.append("appliedByOrigin", byOrigin);
        d.append("echoesSkipped", new BsonInt64(count(Action.SKIP_ECHO)));
        d.append("conflictsResolved", new BsonInt64(conflictsResolved));
        d.append("conflictsRecorded", new BsonInt64(conflictsRecorded));
        d.append("writeRetries", new BsonInt64(retries));
        d.append("outOfScope", new BsonInt64(outOfScope));
        d.append("heldForLocalDelete", new BsonInt64(heldForLocalDelete));
        return d;
    }

    @Override
    public String toString() {
        return "records=" + records + " decisions=" + decisions + " appliedByOrigin=" + appliedByOrigin
                + " conflicts=" + conflictsResolved + "/" + conflictsRecorded + " retries=" + retries + " outOfScope=" + outOfScope
                + " heldForLocalDelete=" + heldForLocalDelete;
    }
}
