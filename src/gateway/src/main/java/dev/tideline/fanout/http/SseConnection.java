package dev.tideline.fanout.http;

import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.delivery.ByteBudget;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A Server-Sent Events stream: {@code id: <cursor>\nevent: <type>\ndata: <json>\n\n}. The JSON is
 * the change's shared bytes, wrapped rather than copied for each subscriber.
 */
final class SseConnection extends Connection {
    private static final byte[] END = "\n\n".getBytes(StandardCharsets.US_ASCII);

    SseConnection(Channel socket, ChannelHub hub, GatewayStats stats, ByteBudget budget, ByteBudget total, List<ChannelName> channels,
                  long subscribedAtMillis, LoopOutbox.Registry outboxes) {
        super(socket, hub, stats, budget, total, channels, subscribedAtMillis, outboxes);
    }

    @Override
    protected Object frame(String event, String id, byte[] data) {
        byte[] head = head(event, id);
        return new DefaultHttpContent(Unpooled.wrappedBuffer(head, data, END));
    }

    @Override
    protected int frameSize(String event, String id, byte[] data) {
        // id and event names are ASCII
        return 4 + id.length() + 8 + event.length() + 7 + data.length + END.length;
    }

    private static byte[] head(String event, String id) {
        return ("id: " + id + "\nevent: " + event + "\ndata: ").getBytes(StandardCharsets.US_ASCII);
    }
}
