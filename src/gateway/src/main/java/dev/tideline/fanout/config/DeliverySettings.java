package dev.tideline.fanout.config;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/** What each connection and the gateway as a whole may hold while sockets lag, and how many channels exist. */
public final class DeliverySettings {
    static final String GROUP = "Delivery";
    public static final String QUEUE_MAX_BYTES = "client.queue.max.bytes";
    public static final String QUEUE_TOTAL_MAX_BYTES = "client.queue.total.max.bytes";
    public static final String SEND_BUFFER_BYTES = "client.send.buffer.bytes";
    public static final String MAX_CHANNELS = "subscription.max.channels";
    public static final String CHANNELS_MAX = "channels.max";
    public static final String FLUSH_WINDOW_MS = "client.flush.window.ms";

    private final long queueMaxBytes;
    private final long queueTotalMaxBytes;
    private final int sendBufferBytes;
    private final int maxChannelsPerSubscription;
    private final int channelsMax;
    private final int flushWindowMs;

    DeliverySettings(AbstractConfig c) {
        queueMaxBytes = c.getLong(QUEUE_MAX_BYTES);
        queueTotalMaxBytes = c.getLong(QUEUE_TOTAL_MAX_BYTES);
        sendBufferBytes = c.getInt(SEND_BUFFER_BYTES);
        maxChannelsPerSubscription = c.getInt(MAX_CHANNELS);
        channelsMax = c.getInt(CHANNELS_MAX);
        flushWindowMs = c.getInt(FLUSH_WINDOW_MS);
    }

    static void define(ConfigDef def) {
        int o = 0;
        def.define(QUEUE_MAX_BYTES, Type.LONG, 1_048_576L, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                "Bytes a connection may have waiting to be written (pings, pongs and keep-alives included); beyond it the "
                        + "client is disconnected as a slow consumer. A client catching up is sent what it missed at the pace "
                        + "it reads, and its live changes wait meanwhile within the same bound.",
                GROUP, ++o, Width.SHORT, "Client queue bound");
        def.define(QUEUE_TOTAL_MAX_BYTES, Type.LONG, 268_435_456L, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                "Bytes all connections together may have waiting (keep it well under the heap, -Xmx); a connection that "
                        + "would go over it is disconnected with reason 'overloaded' and resumes later.",
                GROUP, ++o, Width.SHORT, "Total queue bound");
        def.define(SEND_BUFFER_BYTES, Type.INT, 0, ConfigDef.Range.atLeast(0), Importance.LOW,
                "Socket send buffer per connection (SO_SNDBUF); 0 leaves the operating system's default.",
                GROUP, ++o, Width.SHORT, "Socket send buffer");
        def.define(MAX_CHANNELS, Type.INT, 32, ConfigDef.Range.between(1, 1000), Importance.LOW,
                "Channels one connection may subscribe to.", GROUP, ++o, Width.SHORT, "Channels per connection");
        def.define(CHANNELS_MAX, Type.INT, 100_000, ConfigDef.Range.between(1, 10_000_000), Importance.MEDIUM,
                "Channels the gateway holds at most. A channel exists while it has subscribers or recent history; at the "
                        + "cap the least recently used one without subscribers is dropped (its clients resume from Kafka), and "
                        + "when every channel has subscribers a subscription that needs a new one is refused (503 channels-full).",
                GROUP, ++o, Width.SHORT, "Channel cap");
        def.define(FLUSH_WINDOW_MS, Type.INT, 0, ConfigDef.Range.between(0, 1000), Importance.LOW,
                "How long the gateway gathers the events waiting for a connection before writing them in one system call. "
                        + "0 writes as soon as an event loop is free (what arrives meanwhile is gathered all the same); a few "
                        + "milliseconds gather more events per write when clients receive several changes per window, at the "
                        + "cost of as much added latency. It never delays a change by more than the window.",
                GROUP, ++o, Width.SHORT, "Write batching window");
    }

    public long queueMaxBytes() {
        return queueMaxBytes;
    }

    public long queueTotalMaxBytes() {
        return queueTotalMaxBytes;
    }

    public int sendBufferBytes() {
        return sendBufferBytes;
    }

    public int maxChannelsPerSubscription() {
        return maxChannelsPerSubscription;
    }

    public int channelsMax() {
        return channelsMax;
    }

    public int flushWindowMs() {
        return flushWindowMs;
    }
}
