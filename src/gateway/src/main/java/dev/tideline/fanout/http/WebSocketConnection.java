package dev.tideline.fanout.http;

import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.delivery.ByteBudget;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The same events over a WebSocket: one text frame each, {@code {"event":..,"id":..,"data":<json>}}. */
final class WebSocketConnection extends Connection {
    private static final byte[] END = "}".getBytes(StandardCharsets.US_ASCII);

    WebSocketConnection(Channel socket, ChannelHub hub, GatewayStats stats, ByteBudget budget, ByteBudget total, List<ChannelName> channels,
                        long subscribedAtMillis, LoopOutbox.Registry outboxes) {
        super(socket, hub, stats, budget, total, channels, subscribedAtMillis, outboxes);
    }

    @Override
    protected Object frame(String event, String id, byte[] data) {
        byte[] head = ("{\"event\":\"" + event + "\",\"id\":\"" + id + "\",\"data\":").getBytes(StandardCharsets.US_ASCII);
        return new TextWebSocketFrame(Unpooled.wrappedBuffer(head, data, END));
    }

    @Override
    protected int frameSize(String event, String id, byte[] data) {
        return 10 + event.length() + 8 + id.length() + 9 + data.length + 1;
    }

    /** Answers a client's ping within the connection's byte budget (a client that pings and never reads is cut off). */
    void pong(ByteBuf payload) {
        // a pong frame: 2 header bytes plus the ping's payload (at most 125 bytes, RFC 6455 5.5)
        sendControl(new PongWebSocketFrame(payload), 2 + payload.readableBytes());
    }
}
