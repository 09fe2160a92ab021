package dev.tideline.fanout.config;

import dev.tideline.fanout.channel.HistoryLimits;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** The in-memory history (a cache), reading back from Kafka, and what the gateway remembers of documents. */
public final class ResumeSettings {
    static final String GROUP = "History and resume";
    public static final String HISTORY_SIZE = "history.size";
    public static final String HISTORY_AGE_MS = "history.age.ms";
    public static final String HISTORY_MAX_BYTES = "history.max.bytes";
    public static final String HISTORY_TOTAL_MAX_BYTES = "history.total.max.bytes";
    public static final String KAFKA_READERS = "resume.kafka.readers";
    public static final String QUEUE_MAX = "resume.queue.max";
    public static final String LOOKBACK_RECORDS = "resume.lookback.records";
    public static final String TIME_MARGIN_MS = "resume.time.margin.ms";
    public static final String MEMORY_ENTRIES = "document.memory.max.entries";

    private final HistoryLimits history;
    private final int kafkaReaders;
    private final int queueMax;
    private final int lookbackRecords;
    private final long timeMarginMs;
    private final int memoryEntries;

    ResumeSettings(AbstractConfig c) {
        history = new HistoryLimits(c.getInt(HISTORY_SIZE), c.getLong(HISTORY_AGE_MS), c.getLong(HISTORY_MAX_BYTES),
                c.getLong(HISTORY_TOTAL_MAX_BYTES));
        kafkaReaders = c.getInt(KAFKA_READERS);
        queueMax = c.getInt(QUEUE_MAX);
        lookbackRecords = c.getInt(LOOKBACK_RECORDS);
        timeMarginMs = c.getLong(TIME_MARGIN_MS);
        memoryEntries = c.getInt(MEMORY_ENTRIES);
    }

    static void define(ConfigDef def) {
        int o = 0;
        def.define(HISTORY_SIZE, Type.INT, 1000, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "Changes kept in memory per channel, from which a resuming client is served without reading Kafka. A client "
                        + "further behind is served from Kafka; only data past the topics' retention is 'unrecoverable'.",
                GROUP, ++o, Width.SHORT, "History size");
        def.define(HISTORY_AGE_MS, Type.LONG, 300_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "How long a change stays in the in-memory history. At start-up the gateway reads the topics from this far "
                        + "back, so that it can serve the clients of a node that stopped from memory.",
                GROUP, ++o, Width.SHORT, "History age");
        def.define(HISTORY_MAX_BYTES, Type.LONG, 4L << 20, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "Bytes of history kept per channel.", GROUP, ++o, Width.SHORT, "History bytes per channel");
        def.define(HISTORY_TOTAL_MAX_BYTES, Type.LONG, 128L << 20, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "Bytes of history kept by all channels together (keep it well under the heap, -Xmx); past it the oldest "
                        + "changes of the busiest channels go first.", GROUP, ++o, Width.SHORT, "History bytes in all");
        def.define(KAFKA_READERS, Type.INT, 2, ConfigDef.Range.between(1, 64), Importance.LOW,
                "Threads (each with its own Kafka consumer) that read back what resuming clients missed beyond the history.",
                GROUP, ++o, Width.SHORT, "Kafka readers");
        def.define(QUEUE_MAX, Type.INT, 1000, ConfigDef.Range.between(1, 1_000_000), Importance.LOW,
                "Channels waiting for a Kafka reader at most; a subscription beyond it is disconnected as 'overloaded' and "
                        + "retries later.", GROUP, ++o, Width.SHORT, "Kafka read queue");
        def.define(LOOKBACK_RECORDS, Type.INT, 10_000, ConfigDef.Range.between(0, 10_000_000), Importance.LOW,
                "Records per partition a Kafka reader reads before a client's position (without sending them) to recognise "
                        + "changes the source sent twice after a crash, as the live consumer does.",
                GROUP, ++o, Width.SHORT, "Read-back look-back");
        def.define(TIME_MARGIN_MS, Type.LONG, 60_000L, ConfigDef.Range.atLeast(0), Importance.LOW,
                "A resuming client's cursor names the topics it was reading; a topic it does not name (created since, or "
                        + "not yet known to the gateway that served it) is read from the client's first subscription time "
                        + "minus this margin, which covers pipeline lag.", GROUP, ++o, Width.SHORT, "Time margin");
        def.define(MEMORY_ENTRIES, Type.INT, 200_000, ConfigDef.Range.between(0, 100_000_000), Importance.MEDIUM,
                "Documents whose tenant and last version the gateway remembers (least recently changed forgotten first): a "
                        + "delete without a tl.tenant header reaches the tenant its document had, and a change the source sends "
                        + "again after a crash is delivered once. About 200 bytes each.",
                GROUP, ++o, Width.SHORT, "Documents remembered");
    }

    public HistoryLimits history() {
        return history;
    }

    public int kafkaReaders() {
        return kafkaReaders;
    }

    public int queueMax() {
        return queueMax;
    }

    public int lookbackRecords() {
        return lookbackRecords;
    }

    public long timeMarginMs() {
        return timeMarginMs;
    }

    public int memoryEntries() {
        return memoryEntries;
    }
}
