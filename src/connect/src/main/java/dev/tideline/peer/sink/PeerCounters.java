package dev.tideline.peer.sink;

import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.RefusedRecordException;
import dev.tideline.peer.LastWriterWins.Action;
import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonInt64;

/**
 * What one peer sink task did, since it started: per decision, per origin applied, conflicts, and the records it
 * refused to the dead letter queue (per kind, and when and why the last one was).
 */
final class PeerCounters {
    /** Why a record went to the dead letter queue. */
    enum Refusal {
        /** a peer write without a signed stamp, or a delete without a MAC */
        MISSING_MAC("missingMac"),
        /** a stamp or delete MAC that does not verify with the link's key */
        BAD_MAC("badMac"),
        /** refused by the front end: size, signature, namespace policy, ids, documents */
        REFUSED("refused"),
        /** a record that cannot be read as a peer change */
        MALFORMED("malformed");

        private final String label;

        Refusal(String label) {
            this.label = label;
        }

        static Refusal of(MalformedRecordException e) {
            if (e instanceof UnauthenticRecordException u) {
                return u.missing() ? MISSING_MAC : BAD_MAC;
            }
            return e instanceof RefusedRecordException ? REFUSED : MALFORMED;
        }
    }

    private final Map<Refusal, Long> refusals = new EnumMap<>(Refusal.class);
    private long lastRefusalAt = -1;
    private String lastRefusal;
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

    /** A record sent to the dead letter queue, and the reason it carries there. */
    void refused(Refusal kind, String reason) {
        refusals.merge(kind, 1L, Long::sum);
        lastRefusalAt = System.currentTimeMillis();
        lastRefusal = reason;
    }

    long records() {
        return records;
    }

    long conflictsResolved() {
        return conflictsResolved;
    }

    /** A copy of the refusals per kind (kinds without one absent). */
    Map<Refusal, Long> refusals() {
        return refusals.isEmpty() ? Map.of() : new EnumMap<>(refusals);
    }

    long refusedTotal() {
        return refusals.values().stream().mapToLong(Long::longValue).sum();
    }

    /** When the last record was refused (epoch ms), -1 when none was. */
    long lastRefusalAt() {
        return lastRefusalAt;
    }

    /** The last refused record's reason (topic, partition, offset and why); null when none was. */
    String lastRefusal() {
        return lastRefusal;
    }

    /** The refusals per kind, e.g. {@code missingMac=3 badMac=1}. */
    String refusalCounts() {
        StringBuilder out = new StringBuilder();
        refusals.forEach((k, n) -> out.append(out.isEmpty() ? "" : " ").append(k.label).append('=').append(n));
        return out.toString();
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
        BsonDocument refused = new BsonDocument();
        for (Refusal r : Refusal.values()) {
            refused.append(r.label, new BsonInt64(refusals.getOrDefault(r, 0L)));
        }
        d.append("refusedToDlq", refused);
        return d;
    }

    @Override
    public String toString() {
        return "records=" + records + " decisions=" + decisions + " appliedByOrigin=" + appliedByOrigin
                + " conflicts=" + conflictsResolved + "/" + conflictsRecorded + " retries=" + retries + " outOfScope=" + outOfScope
                + " heldForLocalDelete=" + heldForLocalDelete + " refusedToDlq=" + refusedTotal();
    }
}
