package dev.tideline.fanout.http;

import dev.tideline.fanout.stats.GatewayStats;
import dev.tideline.fanout.channel.ChannelHub;
import dev.tideline.fanout.channel.ChannelName;
import dev.tideline.fanout.delivery.ByteBudget;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundInvoker;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A Server-Sent Events stream: {@code id: <cursor>\nevent: <type>\ndata: <json>\n\n}, in the chunked
 * response the request handler began. The frames of one flush go out as one HTTP chunk, framed here
 * and written past the HTTP encoder (which would make a chunk, a promise and three buffers of
 * each frame).
 */
final class SseConnection extends Connection {
    private static final byte[] ID = "id: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVENT = "\nevent: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATA = "\ndata: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "\n\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    /** The chunk size line of the batch being taken: at most 8 hex digits and CRLF. */
    private final byte[] sizeLine = new byte[FrameBuffer.HEADROOM];

    /** The HTTP codec's context: what is written there goes to the socket unencoded. */
    private final ChannelOutboundInvoker out;

    SseConnection(Channel socket, ChannelHub hub, GatewayStats stats, ByteBudget budget, ByteBudget total, List<ChannelName> channels,
                  long subscribedAtMillis, LoopOutbox.Registry outboxes) {
        super(socket, hub, stats, budget, total, channels, subscribedAtMillis, outboxes);
        ChannelOutboundInvoker codec = socket.pipeline().context(HttpGateway.HTTP_CODEC);
        // a socket closed meanwhile may have no pipeline left: its writes fail either way
        this.out = codec != null ? codec : socket;
    }

    @Override
    protected void appendFrame(FrameBuffer frames, String event, CharSequence id, byte[] data) {
        frames.bytes(ID).ascii(id).bytes(EVENT).ascii(event).bytes(DATA).bytes(data).bytes(END);
    }

    @Override
    protected int frameSize(String event, int idLength, int dataLength) {
        // id and event names are ASCII
        return ID.length + idLength + EVENT.length + event.length() + DATA.length + dataLength + END.length;
    }

    /** One chunk of the response (RFC 9112 7.1): its size in hex, CRLF, the frames, CRLF. */
    @Override
    protected ByteBuf takeBatch(FrameBuffer frames) {
        return frames.take(sizeLine, chunkSizeLine(frames.size()), CRLF);
    }

    /**
     * Writes {@code <size in lower-case hex>\r\n} into this connection's own array (its lock guards it,
     * so nothing is allocated per write) and returns its length.
     */
    private int chunkSizeLine(int size) {
        int digits = Math.max(1, (Integer.SIZE - Integer.numberOfLeadingZeros(size) + 3) / 4);
        for (int i = digits - 1, v = size; i >= 0; i--, v >>>= 4) {
            sizeLine[i] = HEX[v & 0xf];
        }
        sizeLine[digits] = '\r';
        sizeLine[digits + 1] = '\n';
        return digits + 2;
    }

    @Override
    protected ChannelOutboundInvoker out() {
        return out;
    }
}
