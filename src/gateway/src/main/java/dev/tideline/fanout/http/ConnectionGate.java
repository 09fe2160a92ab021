package dev.tideline.fanout.http;

import dev.tideline.fanout.stats.GatewayStats;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * First in every connection's pipeline: admits it under the connection caps, or answers 503 before
 * reading anything and closes it. Releases its count when the connection closes.
 */
final class ConnectionGate extends ChannelInboundHandlerAdapter {
    private final ConnectionLimiter limiter;
    private final GatewayStats stats;
    private String address;
    private boolean admitted;

    ConnectionGate(ConnectionLimiter limiter, GatewayStats stats) {
        this.limiter = limiter;
        this.stats = stats;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        address = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress().getHostAddress() : "unknown";
        ConnectionLimiter.Verdict v = limiter.tryAcquire(address);
        if (v == ConnectionLimiter.Verdict.ACCEPTED) {
            admitted = true;
            super.channelActive(ctx);
            return;
        }
        String reason = v == ConnectionLimiter.Verdict.TOO_MANY ? "too-many-connections" : "too-many-connections-from-address";
        stats.refused("503:" + reason);
        String body = RequestHandler.error(reason, v == ConnectionLimiter.Verdict.TOO_MANY
                ? "the gateway holds its maximum of connections (http.max.connections): retry later"
                : "this address holds its maximum of connections (http.max.connections.per.address)");
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 5\r\nConnection: close\r\n"
                + "Content-Length: " + bytes.length + "\r\n\r\n";
        ctx.writeAndFlush(Unpooled.wrappedBuffer(head.getBytes(StandardCharsets.US_ASCII), bytes)).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (admitted) {
            ctx.fireChannelRead(msg);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (admitted) {
            admitted = false;
            limiter.release(address);
        }
        super.channelInactive(ctx);
    }
}
