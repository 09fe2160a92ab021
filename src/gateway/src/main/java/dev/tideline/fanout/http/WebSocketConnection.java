package dev.tideline.fanout.http;

import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.delivery.ByteBudget;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundInvoker;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The same events over a WebSocket: one text frame each, {@code {"event":..,"id":..,"data":<json>}}.
 * The frames of one flush are framed here (RFC 6455 5.2: FIN, opcode 1, the payload length, no mask
 * from a server) and written as one buffer, which the WebSocket encoder passes as it is.
 */
final class WebSocketConnection extends Connection {
    private static final byte[] EVENT = "{\"event\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ID = "\",\"id\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATA = "\",\"data\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "}".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NONE = {};
    /** FIN and the text opcode. */
    private static final int FIN_TEXT = 0x81;

    WebSocketConnection(Channel socket, ChannelHub hub, GatewayStats stats, ByteBudget budget, ByteBudget total, List<ChannelName> channels,
                        long subscribedAtMillis, LoopOutbox.Registry outboxes) {
        super(socket, hub, stats, budget, total, channels, subscribedAtMillis, outboxes);
    }

    @Override
    protected void appendFrame(FrameBuffer frames, String event, CharSequence id, byte[] data) {
        long length = payloadSize(event, id.length(), data.length);
        frames.oneByte(FIN_TEXT);
        if (length < 126) {
            frames.oneByte((int) length);
        } else if (length < 65_536) {
            frames.oneByte(126).oneByte((int) (length >>> 8)).oneByte((int) length);
        } else {
            frames.oneByte(127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                frames.oneByte((int) (length >>> shift));
            }
        }
        frames.bytes(EVENT).ascii(event).bytes(ID).ascii(id).bytes(DATA).bytes(data).bytes(END);
    }

    @Override
    protected int frameSize(String event, int idLength, int dataLength) {
        int payload = payloadSize(event, idLength, dataLength);
        return (payload < 126 ? 2 : payload < 65_536 ? 4 : 10) + payload;
    }

    private static int payloadSize(String event, int idLength, int dataLength) {
        return EVENT.length + event.length() + ID.length + idLength + DATA.length + dataLength + END.length;
    }

    @Override
    protected ByteBuf takeBatch(FrameBuffer frames) {
        return frames.take(NONE, NONE);
    }

    @Override
    protected ChannelOutboundInvoker out() {
        return socket;
    }

    /** Answers a client's ping within the connection's byte budget (a client that pings and never reads is cut off). */
    void pong(ByteBuf payload) {
        // a pong frame: 2 header bytes plus the ping's payload (at most 125 bytes, RFC 6455 5.5)
        sendControl(new PongWebSocketFrame(payload), 2 + payload.readableBytes());
    }
}
