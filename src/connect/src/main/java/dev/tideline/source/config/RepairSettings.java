package dev.tideline.source.config;

import dev.tideline.source.repair.RepairSignals;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** Repairs while streaming: re-copies asked for by a signal document, in chunks between watermarks. */
public final class RepairSettings {
    public static final String GROUP = "Repair";
    public static final String SIGNALS_ENABLED = "repair.signals.enabled";
    public static final String CHUNK_SIZE = "repair.chunk.size";
    public static final String QUEUE_MAX = "repair.queue.max";
    /** Bounded by the signals the offset remembers as finished until their documents are marked (RepairProgress). */
    static final int QUEUE_MAX_LIMIT = 50;

    private final boolean enabled;
    private final int chunkSize;
    private final int queueMax;

    RepairSettings(AbstractConfig c) {
        this.enabled = c.getBoolean(SIGNALS_ENABLED);
        this.chunkSize = c.getInt(CHUNK_SIZE);
        this.queueMax = c.getInt(QUEUE_MAX);
    }

    static void define(ConfigDef def) {
        int order = 0;
        def.define(SIGNALS_ENABLED, Type.BOOLEAN, true, Importance.MEDIUM,
                "Act on repair signals: a document inserted into <db>." + RepairSignals.COLLECTION + " ({collection: <name>}, "
                        + "optionally with ids: [...] or from/to _id bounds) makes the task that captures that collection copy "
                        + "those documents again while its change stream goes on, in chunks between two watermarks (documents "
                        + "it writes and removes in the same collection), so a copied document never follows a newer change on "
                        + "the topic; documents not found are deleted downstream. Resumes after a restart; each signal runs "
                        + "once per connector: the task marks it done (or refused) in the signal document itself. Needs find, insert, "
                        + "update and remove on that collection, only when a signal is used. "
                        + "The change streams also read that collection (a few events per repair). false: signals are ignored.",
                GROUP, ++order, Width.SHORT, "Repair signals");
        def.define(CHUNK_SIZE, Type.INT, 1_000, ConfigDef.Range.between(1, 50_000), Importance.LOW,
                "Documents a repair reads per chunk (one watermark pair per chunk). Larger chunks: fewer round trips; "
                        + "smaller: a shorter window in which changed documents are left to the stream.",
                GROUP, ++order, Width.SHORT, "Repair chunk size");
        def.define(QUEUE_MAX, Type.INT, 4, ConfigDef.Range.between(0, QUEUE_MAX_LIMIT), Importance.LOW,
                "Repair signals that may wait per collection behind the one running (one runs at a time per task). A "
                        + "further signal for that collection is refused: logged, and marked refused in its document, so it "
                        + "never runs (insert it again once the queue has room). Bounds the copies that whoever may insert into "
                        + "<db>." + RepairSignals.COLLECTION + " can cause.",
                GROUP, ++order, Width.SHORT, "Repair queue per collection");
    }

    public boolean enabled() {
        return enabled;
    }

    public int chunkSize() {
        return chunkSize;
    }

    public int queueMax() {
        return queueMax;
    }
}
