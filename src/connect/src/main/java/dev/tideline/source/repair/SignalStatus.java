package dev.tideline.source.repair;

import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Where a signal stands for each source connector, written in the signal document itself, so a restart
 * never runs a finished or refused signal again, however many there were. Pure: the filters and updates
 * here are run by the source ({@code SignalMarks}).
 *
 * <pre>
 * {_id: ..., collection: "orders",
 *  status: {queued: [{connector: "audit", at: ISODate(...)}],
 *           done: [{connector: "shop.source", at: ISODate(...)}],
 *           refused: [{connector: "other", at: ISODate(...), reason: "..."}]}}
 * </pre>
 * A connector appears in one list at most (its name is a value, never a field path: it may hold dots).
 * States go {@code queued -> done}, or to {@code refused} with its reason, from queued or from nothing;
 * every write is one update conditioned on the connector being in no terminal list, so a terminal state is
 * never overwritten and a signal is never marked twice. No positional operator is needed.
 */
public final class SignalStatus {
    public static final String FIELD = "status";

    /** A signal's state for one connector. */
    public enum State {
        /** Not seen by this connector yet. */
        NEW,
        /** Accepted: runs (or resumes) at this connector's next chance. */
        QUEUED,
        /** Finished, its last records committed: never runs again. */
        DONE,
        /** Refused (a full queue, a bad signal): never runs. */
        REFUSED;

        String list() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        public boolean terminal() {
            return this == DONE || this == REFUSED;
        }
    }

    /** A conditional update: applied only when {@code filter} still matches. */
    public record Update(BsonDocument filter, BsonDocument update) {
    }

    private SignalStatus() {
    }

    /** The signal's state for {@code connector} (terminal lists first: an edited document never runs a done signal again). */
    public static State of(BsonDocument signal, String connector) {
        BsonValue status = signal.get(FIELD);
        if (status == null || !status.isDocument()) {
            return State.NEW;
        }
        for (State s : new State[] {State.DONE, State.REFUSED, State.QUEUED}) {
            BsonValue list = status.asDocument().get(s.list());
            if (list != null && list.isArray() && list.asArray().stream()
                    .anyMatch(e -> e.isDocument() && new BsonString(connector).equals(e.asDocument().get("connector")))) {
                return s;
            }
        }
        return State.NEW;
    }

    /**
     * Why the source cannot write its state into this signal (a {@code status} someone wrote that is not a document
     * of arrays: an update would fail on it), or null. Such a signal is never run: it could not be marked done.
     */
    public static String unmarkable(BsonDocument signal) {
        BsonValue status = signal.get(FIELD);
        if (status == null) {
            return null;
        }
        if (!status.isDocument()) {
            return "its \"" + FIELD + "\" is not a document";
        }
        for (State s : new State[] {State.QUEUED, State.DONE, State.REFUSED}) {
            BsonValue list = status.asDocument().get(s.list());
            if (list != null && !list.isArray()) {
                return "its \"" + path(s) + "\" is not an array";
            }
        }
        return null;
    }

    /** NEW to QUEUED. */
    public static Update queue(BsonValue signal, String connector, long nowMs) {
        BsonDocument filter = notHandledBy(connector).append("_id", signal);
        return new Update(filter, new BsonDocument("$push", new BsonDocument(path(State.QUEUED), entry(connector, nowMs, null))));
    }

    /** NEW or QUEUED to DONE or REFUSED. */
    public static Update finish(BsonValue signal, String connector, State to, long nowMs, String reason) {
        return finish(new BsonDocument("_id", signal), connector, to, nowMs, reason);
    }

    /** NEW or QUEUED to DONE or REFUSED, for each of these signals (an update of many: a flood is refused in one round trip). */
    public static Update finishAll(List<BsonValue> signals, String connector, State to, long nowMs, String reason) {
        return finish(new BsonDocument("_id", new BsonDocument("$in", new BsonArray(signals))), connector, to, nowMs, reason);
    }

    private static Update finish(BsonDocument filter, String connector, State to, long nowMs, String reason) {
        if (!to.terminal()) {
            throw new IllegalArgumentException(to + " is not a final state");
        }
        filter.append(connectorIn(State.DONE), ne(connector)).append(connectorIn(State.REFUSED), ne(connector));
        BsonDocument update = new BsonDocument("$pull", new BsonDocument(path(State.QUEUED), new BsonDocument("connector",
                new BsonString(connector))))
                .append("$push", new BsonDocument(path(to), entry(connector, nowMs, reason)));
        return new Update(filter, update);
    }

    /** The filter of the signals this connector has not handled at all. */
    public static BsonDocument notHandledBy(String connector) {
        BsonDocument f = new BsonDocument();
        for (State s : new State[] {State.QUEUED, State.DONE, State.REFUSED}) {
            f.append(connectorIn(s), ne(connector));
        }
        return f;
    }

    /** The filter of the signals this connector queued (to resume them first at a start). */
    public static BsonDocument queuedBy(String connector) {
        return new BsonDocument(connectorIn(State.QUEUED), new BsonString(connector));
    }

    private static String path(State s) {
        return FIELD + "." + s.list();
    }

    private static String connectorIn(State s) {
        return path(s) + ".connector";
    }

    private static BsonDocument ne(String connector) {
        return new BsonDocument("$ne", new BsonString(connector));
    }

    private static BsonDocument entry(String connector, long nowMs, String reason) {
        BsonDocument e = new BsonDocument("connector", new BsonString(connector)).append("at", new BsonDateTime(nowMs));
        if (reason != null) {
            e.append("reason", new BsonString(reason));
        }
        return e;
    }
}
