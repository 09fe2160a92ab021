package dev.tideline.source;

import dev.tideline.log.LogText;
import dev.tideline.source.repair.RepairSignals;
import dev.tideline.source.repair.SignalStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The refusals of one pass over a database's signals, marked in bulk (one update per reason and
 * {@value #FLUSH_AT} signals): a flood of signals is refused in a few round trips, well within the time the
 * repair running takes, so a queue freed meanwhile does not let the flood's tail in. Each refused signal
 * gets its log line once it is marked. Not thread-safe: one pass, one thread.
 */
final class SignalRefusals {
    private static final Logger log = LoggerFactory.getLogger(SignalRefusals.class);
    private static final int FLUSH_AT = 500;

    private final SignalMarks marks;
    private final String db;
    private final Map<String, List<BsonValue>> byReason = new LinkedHashMap<>();

    SignalRefusals(SignalMarks marks, String db) {
        this.marks = marks;
        this.db = db;
    }

    /** @param why why it is refused, its values already escaped (it goes to the log and into the signal) */
    void add(BsonValue signal, String why) {
        List<BsonValue> ids = byReason.computeIfAbsent(why, k -> new ArrayList<>());
        ids.add(signal);
        if (ids.size() >= FLUSH_AT) {
            flush(why, ids);
            byReason.remove(why);
        }
    }

    /** Marks what is left. */
    void flush() {
        byReason.forEach(this::flush);
        byReason.clear();
    }

    private void flush(String why, List<BsonValue> ids) {
        long marked = marks.finishAll(db, ids, SignalStatus.State.REFUSED, why);
        if (marked == 0) {
            return; // all marked already (by another task of the connector reading the same stream)
        }
        for (BsonValue id : ids) {
            log.warn("Repair signal {} in {}.{} is refused: {}. Marked refused in the signal.", LogText.escape(id), LogText.escape(db),
                    RepairSignals.COLLECTION, why);
        }
    }
}
