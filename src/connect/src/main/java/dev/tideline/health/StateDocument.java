package dev.tideline.health;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The state document of one source task, as a dashboard reads it from {@code _tideline_state}: one
 * document per task, {@code _id} {@code <connector>/<task>}, rewritten in place. Pure: built from a
 * snapshot of the task's metrics.
 */
public final class StateDocument {
    private StateDocument() {
    }

    public static BsonValue id(TaskIdentity task) {
        return new BsonString(task.connector() + "/" + task.task());
    }

    /** @param health the roll-up, or null for a task that has stopped ({@code health: "stopped"}) */
    public static BsonDocument of(TaskIdentity task, Health health, List<SourceCollectionMetrics> collections,
                                  String host, long pid, Instant now) {
        BsonArray colls = new BsonArray();
        for (SourceCollectionMetrics c : collections) {
            colls.add(new BsonDocument("ns", new BsonString(c.collection()))
                    .append("phase", new BsonString(c.getPhase()))
                    .append("health", new BsonString(c.getHealth()))
                    .append("events", new BsonInt64(c.getEvents()))
                    .append("lastEventClusterTime", c.getLastEventClusterTime().isEmpty()
                            ? BsonNull.VALUE : new BsonDateTime(Instant.parse(c.getLastEventClusterTime()).toEpochMilli()))
                    .append("backfillCopied", new BsonInt64(c.getBackfillCopied()))
                    .append("retries", new BsonInt64(c.getRetries()))
                    .append("lostHistoryEvents", new BsonInt64(c.getLostHistoryEvents()))
                    .append("position", position(c.position())));
        }
        BsonArray reasons = new BsonArray();
        if (health != null) {
            health.reasons().forEach(r -> reasons.add(new BsonString(r)));
        }
        return new BsonDocument("_id", id(task))
                .append("connector", new BsonString(task.connector()))
                .append("task", new BsonInt32(task.task()))
                .append("health", new BsonString(health == null ? "stopped" : health.state().wireName()))
                .append("reasons", reasons)
                .append("host", new BsonString(host))
                .append("pid", new BsonInt64(pid))
                .append("updatedAt", new BsonDateTime(now.toEpochMilli()))
                .append("collections", colls);
    }

    /** The source offset as Connect stores it (strings and numbers), so an operator can copy it into a PATCH. */
    private static BsonValue position(Map<String, Object> offset) {
        if (offset == null) {
            return BsonNull.VALUE;
        }
        BsonDocument d = new BsonDocument();
        offset.forEach((k, v) -> d.append(k, v instanceof Integer i ? new BsonInt32(i)
                : v instanceof Long l ? new BsonInt64(l)
                : v instanceof Number n ? new BsonDouble(n.doubleValue())
                : v == null ? BsonNull.VALUE : new BsonString(v.toString())));
        return d;
    }
}
